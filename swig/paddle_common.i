// What every language binding of the engine API (PaddleAPI.h) shares: the
// container types and which calls hand their result to the caller. paddle.i
// (Python) and paddle_java.i (Java) include it before their own typemaps, so the
// two bindings cannot drift apart. Include PaddleAPI.h after it.

%template(StringVector) std::vector<std::string>;
%template(FloatVector) std::vector<float>;
%template(IntVector) std::vector<int>;
%template(DoubleVector) std::vector<double>;
%template(SizeVector) std::vector<size_t>;
%template(IntFloatPair) std::pair<int, float>;
%template(IntFloatPairVector) std::vector<std::pair<int, float>>;
%template(VectorList) std::vector<Vector*>;

// The caller owns (and the wrapper deletes) what these return.
%newobject Matrix::createZero;
%newobject Matrix::createDense;
%newobject Matrix::createDenseFromNumpy;
%newobject Matrix::createDenseFromDevicePointer;
%newobject IVector::createZero;
%newobject IVector::create;
%newobject IVector::createVectorFromNumpy;
%newobject IVector::createVectorFromDevicePointer;
%newobject Vector::createZero;
%newobject Vector::create;
%newobject Vector::createVectorFromNumpy;
%newobject Vector::createVectorFromDevicePointer;
%newobject Matrix::createSparse;
%newobject Matrix::shareMemory;
%newobject Vector::shareMemory;
%newobject Vector::createFromParameterFile;
%newobject IVector::shareMemory;
%newobject Arguments::createArguments;
%newobject Arguments::getSlotIn;
%newobject Arguments::getSlotSequenceDim;
%newobject ParameterConfig::createFromJson;
%newobject OptimizationConfig::createFromJson;
%newobject ModelConfig::createFromJson;
%newobject TrainerConfig::createFromJson;
%newobject TrainerConfig::getModelConfig;
%newobject TrainerConfig::getOptimizationConfig;
%newobject Parameter::getConfig;
%newobject GradientMachine::createByModelConfig;
%newobject GradientMachine::createFromMergedModel;
%newobject Predictor::createFromMergedModel;
%newobject Predictor::forward;
%newobject GradientMachine::getNonStaticParameter;
%newobject GradientMachine::makeEvaluator;
%newobject ParameterOptimizer::create;
%newobject ParameterUpdater::createRemoteUpdater;
%newobject ParameterUpdater::createNewRemoteUpdater;
%newobject Trainer::getForwardOutput;
%newobject Trainer::getLayerOutput;
%newobject Arguments::getSlotValue;
%newobject Arguments::getSlotGrad;
%newobject Arguments::getSlotIds;
%newobject Arguments::getSlotSequenceStartPositions;
%newobject Arguments::getSlotSubSequenceStartPositions;
%newobject Parameter::getBuf;
%newobject GradientMachine::createByConfigJson;
%newobject GradientMachine::getParameter;
%newobject GradientMachine::getParameterByName;
%newobject GradientMachine::getLayerOutput;
%newobject ParameterUpdater::createLocalUpdater;
%newobject Trainer::create;
%newobject Trainer::getGradientMachine;

%ignore Arguments::wrap;
