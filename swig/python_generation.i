// v1's sequence generation API over a beam_search config, defined in py_paddle.swig_paddle
// itself: GradientMachine.asSequenceGenerator (python_engine.i) returns a SequenceGenerator,
// whose generateSequence returns ISequenceResults. paddle.i includes this file after the
// classes it uses.

%pythoncode %{
class ISequenceResults(object):
    """The N best sequences generated for one input, best first (v1's ISequenceResults).

    What ``SequenceGenerator.generateSequence`` returns: each result's word ids, its
    score (the log probability of the sequence) and, through the generator's dictionary,
    its words. Also ``len(results)``. A plain Python object: safe to read from any thread.

    Args:
        paths (list): (ids, log probability) per result, best first.
        words (list of str): the dictionary, id -> word ([] when there is none).

    Example:
        >>> results = swig_paddle.ISequenceResults([([2, 3, 1], -0.5), ([4, 1], -1.25)], fixtures.WORDS)
        >>> results.getSize(), results.getSequence(1), results.getScore(1)
        (2, [4, 1], -1.25)
        >>> results.getSentence(0, True)
        'a b <e>'
    """

    def __init__(self, paths, words):
        self._paths, self._words = paths, words  # [(ids, log probability)]

    def _path(self, i):
        if not 0 <= i < len(self._paths):
            raise RangeError("result %d out of range (%d results)" % (i, len(self._paths)))
        return self._paths[i]

    def getSize(self):
        """The number of results (at most the beam size)."""
        return len(self._paths)

    __len__ = getSize

    def getSequence(self, i):
        """The word ids of result i, as a list (ending with the end id unless cut at the maximum length).

        Args:
            i (int): 0 <= i < getSize() (RangeError otherwise).
        """
        return list(self._path(i)[0])

    def getScore(self, i):
        """The score of result i: the log probability of its sequence (<= 0; higher is better).

        Args:
            i (int): 0 <= i < getSize() (RangeError otherwise).
        """
        return self._path(i)[1]

    def getSentence(self, i, split=False):
        """The words of result i joined into one string, through the dictionary.

        Args:
            i (int): 0 <= i < getSize() (RangeError otherwise).
            split (bool, default False): join with spaces (True) or with nothing, as v1.

        Raises:
            RangeError: an id outside the dictionary (or no dictionary given).
        """
        ids = self._path(i)[0]
        if any(not 0 <= t < len(self._words) for t in ids):
            raise RangeError("result %d has an id outside the dictionary of %d words" % (i, len(self._words)))
        return (" " if split else "").join(self._words[t] for t in ids)


class SequenceGenerator(object):
    """v1's GradientMachine.asSequenceGenerator over a beam_search config.

    v1 stepped a one-step network and kept the beam itself; here the config's
    beam_search group does the search inside the engine. The setters override the
    config's bos/eos ids, maximum length and beam size (the machine is rebuilt with
    them and reads the parameters of the original one at each generateSequence, so it
    follows training).

    Made by ``GradientMachine.asSequenceGenerator``. Thread safety: as its machine's: use
    it from one thread at a time.

    Args:
        gm (GradientMachine): a machine whose config has one beam_search group
            (UnsupportError otherwise).
        words (list of str): the dictionary, id -> word, for getSentence (None: none).
        bos (int): the begin id, None to keep the config's.
        eos (int): the end id, None to keep the config's.
        max_length (int): the most words generated, None to keep the config's.
        beam_size (int): the beam (also the number of results), None to keep the config's.

    Example:
        >>> machine, source = fixtures.generator()
        >>> generator = machine.asSequenceGenerator(fixtures.WORDS)
        >>> results = generator.generateSequence(source)
        >>> results.getSize()
        3
        >>> ids = results.getSequence(0)
        >>> results.getSentence(0, True) == " ".join(fixtures.WORDS[i] for i in ids)
        True
        >>> generator.setBeamSize(1)
        >>> generator.generateSequence(source).getSize()
        1
    """

    def __init__(self, gm, words, bos, eos, max_length, beam_size):
        self._gm, self._words = gm, list(words or [])
        config = _proto.message_from_json("ModelConfig", gm.getModelConfigJson())
        groups = [sm for sm in config.sub_models if sm.HasField("generator")]
        if len(groups) != 1:
            raise UnsupportError("asSequenceGenerator needs a config with one beam_search group, found %d"
                                     % len(groups))
        self._config, self._group = config, groups[0].name
        self._result_layer = groups[0].out_links[0].link_name  # the generated ids
        self._overrides = {}
        self._machine = None
        for key, value in (("bos", bos), ("eos", eos), ("max_length", max_length), ("beam_size", beam_size)):
            if value is not None and value != 2 ** 64 - 1 and value != -1:
                self._overrides[key] = int(value)

    def setDict(self, words):
        """Sets the dictionary getSentence reads.

        Args:
            words (list of str): id -> word.
        """
        self._words = list(words)

    def _set(self, key, value):
        self._overrides[key] = int(value)
        self._machine = None

    def setBos(self, bos):
        """Overrides the begin id the decoder starts from.

        Args:
            bos (int): the id.
        """
        self._set("bos", bos)

    def setEos(self, eos):
        """Overrides the end id that ends a sequence.

        Args:
            eos (int): the id.
        """
        self._set("eos", eos)

    def setMaxLength(self, max_length):
        """Overrides the most words a sequence gets.

        Args:
            max_length (int): the length.
        """
        self._set("max_length", max_length)

    def setBeamSize(self, beam_size):
        """Overrides the beam size (also the number of results).

        Args:
            beam_size (int): the beam; -1 keeps the current one (v1).
        """
        if beam_size not in (-1, 2 ** 64 - 1):  # v1: -1 keeps the current beam
            self._set("beam_size", beam_size)

    def _tuned_machine(self):
        if not self._overrides:
            return self._gm
        if self._machine is None:
            config = type(self._config)()
            config.CopyFrom(self._config)
            sub = next(sm for sm in config.sub_models if sm.name == self._group)
            gen, o = sub.generator, self._overrides
            if "beam_size" in o:
                gen.beam_size = gen.num_results_per_sample = o["beam_size"]
            if "max_length" in o:
                gen.max_num_frames = o["max_length"]
            if "eos" in o:
                for layer in config.layers:
                    if layer.name.split("@")[0] == gen.eos_layer_name.split("@")[0]:
                        layer.eos_id = o["eos"]
            if "bos" in o:
                for memory in sub.memories:
                    if memory.HasField("boot_with_const_id"):
                        memory.boot_with_const_id = o["bos"]
            self._machine = GradientMachine.createByConfigJson(_proto.message_to_json(config), self._gm.isGpu(), 1)
        for mine, theirs in zip(self._machine.getParameters(), self._gm.getParameters()):
            mine.getBuf(PARAMETER_VALUE).copyFrom(theirs.getBuf(PARAMETER_VALUE))
        return self._machine

    def generateSequence(self, in_args):
        """Generates the N best sequences for one input sample.

        Args:
            in_args (Arguments): the data layers' slots for exactly one sample (v1: one
                input sequence); ValueError for more.

        Returns:
            ISequenceResults: the results, best first.
        """
        gm = self._tuned_machine()
        out = Arguments.createArguments(0)
        gm.forward(in_args, out, PASS_TEST)
        gen = gm.getLayerOutput(self._result_layer)
        ids = gen.getSlotIds(0).copyToNumpyArray()
        starts = gen.getSlotSequenceStartPositions(0).copyToNumpyArray()
        if len(starts) != 2:
            raise ValueError("generateSequence takes one input sample, got %d" % (len(starts) - 1))
        sub = gen.getSlotSubSequenceStartPositions(0)
        cuts = sub.copyToNumpyArray() if sub is not None else starts
        scores = gm.getLayerOutput(self._group, "scores").getSlotValue(0)
        scores = scores.copyToNumpyMat().reshape(-1) if scores is not None else _np.zeros(len(cuts) - 1)
        return ISequenceResults([(ids[cuts[k]:cuts[k + 1]].tolist(), float(scores[k])) for k in range(len(cuts) - 1)],
                                self._words)
%}
