"""Messages of DataFormat.proto (v1 names: its binary data files), built at import time by paddle.proto."""

from paddle.proto import get_message_class as _get

VectorSlot = _get('VectorSlot')
SubseqSlot = _get('SubseqSlot')
SlotDef = _get('SlotDef')
DataHeader = _get('DataHeader')
DataSample = _get('DataSample')

__all__ = ['VectorSlot', 'SubseqSlot', 'SlotDef', 'DataHeader', 'DataSample', ]
