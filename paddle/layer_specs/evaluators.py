"""The evaluator helpers' arguments (evaluators.py): not layers, but they take layers
by the same names, so the YAML builder reads their kinds here too."""
from .base import HelperSpec

EVALUATORS = [HelperSpec(n, a, family='evaluators') for n, a in [
    ('auc_evaluator', 'input:layer label:layer name:str weight:layer'),
    ('chunk_evaluator', 'input:layer label:layer chunk_scheme:str num_chunk_types:int name:str '
                        'excluded_chunk_types:any'),
    ('classification_error_evaluator', 'input:layer label:layer name:str weight:layer top_k:int '
                                       'threshold:float'),
    ('classification_error_printer_evaluator', 'input:layer label:layer threshold:float name:str'),
    ('column_sum_evaluator', 'input:layer name:str weight:layer'),
    ('ctc_error_evaluator', 'input:layer label:layer name:str'),
    ('gradient_printer_evaluator', 'input:layers name:str'),
    ('maxframe_printer_evaluator', 'input:layers num_results:int name:str'),
    ('maxid_printer_evaluator', 'input:layers num_results:int name:str'),
    ('pnpair_evaluator', 'input:layer label:layer query_id:layer weight:layer name:str info:layer'),
    ('precision_recall_evaluator', 'input:layer label:layer positive_label:int weight:layer '
                                   'name:str'),
    ('seqtext_printer_evaluator', 'input:layer result_file:str id_input:layer dict_file:str '
                                  'delimited:bool name:str'),
    ('sum_evaluator', 'input:layer name:str weight:layer'),
    ('value_printer_evaluator', 'input:layers name:str'),
]]
