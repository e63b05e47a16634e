swig/paddle_wrap.cpp: \
  swig/paddle.i \
  swig/PaddleAPI.h 
