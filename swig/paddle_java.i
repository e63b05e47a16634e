// SWIG interface of the engine API (PaddleAPI.h) -> Java package org.paddle.
// `paddle build_java` turns it into paddle.jar + libpaddle_jni.so (see
// py_paddle/java_build.py). The classes keep v1's names; where Python takes a
// NumPy array, Java takes a float[] / int[] (copied in or out once per call by
// Get/Release<Type>ArrayElements) or a direct java.nio.FloatBuffer in native
// byte order (its elements from position to limit; the engine reads or writes
// the buffer's memory itself: no copy on the Java side).
%module Paddle

%{
#include <jni.h>
#include "swig/PaddleAPI.h"
#include "engine/Errors.h"
%}

%include <std_string.i>
%include <std_vector.i>
%include <std_pair.i>
%include <enums.swg>  // C++ enums become Java enums (PassType.PASS_TEST)

// Seeds and addresses: a Java long rather than a BigInteger.
%apply long long { unsigned long long };

// ---- C++ exceptions -> Java exceptions (all unchecked) ----
%{
// Throws `javaClass(message)`; I/O errors as UncheckedIOException wrapping an IOException.
static void pdThrow(JNIEnv* env, const char* javaClass, const char* message) {
  if (env->ExceptionCheck()) return;  // keep the first exception
  if (std::string(javaClass) == "java/io/UncheckedIOException") {
    jclass ioClass = env->FindClass("java/io/IOException");
    jclass uncheckedClass = env->FindClass("java/io/UncheckedIOException");
    if (!ioClass || !uncheckedClass) return;
    jstring text = env->NewStringUTF(message);
    jobject cause = env->NewObject(ioClass, env->GetMethodID(ioClass, "<init>", "(Ljava/lang/String;)V"), text);
    jobject wrapped = env->NewObject(uncheckedClass,
                                     env->GetMethodID(uncheckedClass, "<init>",
                                                      "(Ljava/lang/String;Ljava/io/IOException;)V"),
                                     text, cause);
    if (wrapped) env->Throw(static_cast<jthrowable>(wrapped));
    return;
  }
  jclass cls = env->FindClass(javaClass);
  if (cls) env->ThrowNew(cls, message);
}
%}

%exception {
  try {
    $action
  } catch (const std::out_of_range& e) {
    pdThrow(jenv, "java/lang/IndexOutOfBoundsException", e.what());
    return $null;
  } catch (const paddle::IOError& e) {
    pdThrow(jenv, "java/io/UncheckedIOException", e.what());
    return $null;
  } catch (const paddle::UnsupportedError& e) {
    pdThrow(jenv, "java/lang/UnsupportedOperationException", e.what());
    return $null;
  } catch (const std::invalid_argument& e) {  // ConfigError, DataError
    pdThrow(jenv, "java/lang/IllegalArgumentException", e.what());
    return $null;
  } catch (const std::exception& e) {
    pdThrow(jenv, "java/lang/RuntimeException", e.what());
    return $null;
  } catch (...) {
    pdThrow(jenv, "java/lang/RuntimeException", "unknown C++ exception");
    return $null;
  }
}

%include "swig/paddle_common.i"

// ---- Java arrays and direct buffers ----
%{
static jfloat* pdElements(JNIEnv* env, jfloatArray a) { return env->GetFloatArrayElements(a, nullptr); }
static jint* pdElements(JNIEnv* env, jintArray a) { return env->GetIntArrayElements(a, nullptr); }
static void pdRelease(JNIEnv* env, jfloatArray a, jfloat* p, jint mode) { env->ReleaseFloatArrayElements(a, p, mode); }
static void pdRelease(JNIEnv* env, jintArray a, jint* p, jint mode) { env->ReleaseIntArrayElements(a, p, mode); }

// A Java array's elements for the length of one call. Released when the wrapper
// returns (also after a C++ exception); copied back only for outputs.
template <typename JArray, typename T>
struct PdArrayPin {
  JNIEnv* env = nullptr;
  JArray array = nullptr;
  T* data = nullptr;
  size_t size = 0;
  jint mode = JNI_ABORT;
  // false when a Java exception is pending (a null array, no memory)
  bool take(JNIEnv* e, JArray a, bool copyBack) {
    env = e;
    array = a;
    mode = copyBack ? 0 : JNI_ABORT;
    if (!a) {
      pdThrow(e, "java/lang/NullPointerException", "the array is null");
      return false;
    }
    size = static_cast<size_t>(e->GetArrayLength(a));
    data = reinterpret_cast<T*>(pdElements(e, a));
    return data != nullptr;
  }
  ~PdArrayPin() {
    if (data) pdRelease(env, array, reinterpret_cast<decltype(pdElements(env, array))>(data), mode);
  }
};

// What the Java-only overloads below take: a float[] / int[] (PdFloatArray,
// PdIntArray) or a direct FloatBuffer (PdFloatBuffer), as a pointer and a length.
struct PdFloatArray { float* data; size_t size; };
struct PdIntArray { int* data; size_t size; };
struct PdFloatBuffer { float* data; size_t size; };

static void pdCheckSize(const char* what, size_t have, size_t height, size_t width) {
  PADDLE_ENFORCE(have == height * width, std::invalid_argument, what, ": the Java array or buffer holds ", have,
                 " values, a ", height, "x", width, " matrix needs ", height * width);
}
%}

// (TYPE* NAME, size_t SIZE) of PaddleAPI.h: one Java array.
%define PD_JAVA_ARRAY_ARGS(TYPE, NAME, SIZE, JNITYPE, JTYPE, COPYBACK)
%typemap(jni) (TYPE* NAME, size_t SIZE) "JNITYPE"
%typemap(jtype) (TYPE* NAME, size_t SIZE) "JTYPE"
%typemap(jstype) (TYPE* NAME, size_t SIZE) "JTYPE"
%typemap(javain) (TYPE* NAME, size_t SIZE) "$javainput"
%typemap(in) (TYPE* NAME, size_t SIZE) (PdArrayPin<JNITYPE, TYPE> pdJavaPin) {
  if (!pdJavaPin.take(jenv, $input, COPYBACK)) return $null;
  $1 = ($1_ltype)pdJavaPin.data;
  $2 = pdJavaPin.size;
}
%enddef

PD_JAVA_ARRAY_ARGS(float, data, size, jfloatArray, float[], false)
PD_JAVA_ARRAY_ARGS(float, out, size, jfloatArray, float[], true)
PD_JAVA_ARRAY_ARGS(int, data, size, jintArray, int[], false)
PD_JAVA_ARRAY_ARGS(int, out, size, jintArray, int[], true)
PD_JAVA_ARRAY_ARGS(int, rows, rowsSize, jintArray, int[], false)
PD_JAVA_ARRAY_ARGS(int, cols, colsSize, jintArray, int[], false)
PD_JAVA_ARRAY_ARGS(float, values, valuesSize, jfloatArray, float[], false)

// PdFloatArray / PdIntArray NAME: one Java array (NAME "out": copied back).
%define PD_JAVA_ARRAY_STRUCT(STRUCT, NAME, TYPE, JNITYPE, JTYPE, COPYBACK)
%typemap(jni) STRUCT NAME "JNITYPE"
%typemap(jtype) STRUCT NAME "JTYPE"
%typemap(jstype) STRUCT NAME "JTYPE"
%typemap(javain) STRUCT NAME "$javainput"
%typemap(in) STRUCT NAME (PdArrayPin<JNITYPE, TYPE> pdJavaPin) {
  if (!pdJavaPin.take(jenv, $input, COPYBACK)) return $null;
  $1.data = pdJavaPin.data;
  $1.size = pdJavaPin.size;
}
%enddef

PD_JAVA_ARRAY_STRUCT(PdFloatArray, , float, jfloatArray, float[], false)
PD_JAVA_ARRAY_STRUCT(PdFloatArray, out, float, jfloatArray, float[], true)
PD_JAVA_ARRAY_STRUCT(PdIntArray, , int, jintArray, int[], false)

// A direct FloatBuffer: Paddle.directView checks it (direct, native order,
// writable for outputs) and slices it to position..limit.
%typemap(jni) PdFloatBuffer "jobject"
%typemap(jtype) PdFloatBuffer "java.nio.FloatBuffer"
%typemap(jstype) PdFloatBuffer "java.nio.FloatBuffer"
%typemap(javain) PdFloatBuffer "$module.directView($javainput, false)"
%typemap(javain) PdFloatBuffer out "$module.directView($javainput, true)"
%typemap(in) PdFloatBuffer {
  $1.data = static_cast<float*>(jenv->GetDirectBufferAddress($input));
  $1.size = static_cast<size_t>(jenv->GetDirectBufferCapacity($input));
  if (!$1.data) {
    pdThrow(jenv, "java/lang/IllegalArgumentException", "not a direct FloatBuffer");
    return $null;
  }
}
%feature("novaluewrapper") PdFloatArray;
%feature("novaluewrapper") PdIntArray;
%feature("novaluewrapper") PdFloatBuffer;

// Python's NumPy entry points that take a shape from the array, or alias it: Java
// gets *FromArray / copyToArray methods (below) that take an explicit shape and copy.
%ignore Matrix::createDenseFromNumpy;
%ignore Matrix::copyToNumpyMat;
%ignore Matrix::copyFromNumpyMat;
%ignore Vector::createVectorFromNumpy;
%ignore IVector::createVectorFromNumpy;
%ignore Arguments::setSlotValueFromBuffer;
%ignore Matrix::dataPointer;  // host addresses mean nothing to Java
%ignore Vector::dataPointer;
%ignore IVector::dataPointer;

// The Java-only factories below hand their result to the caller too.
%newobject Matrix::createDenseFromArray;
%newobject Vector::createFromArray;
%newobject IVector::createFromArray;

%include "swig/PaddleAPI.h"

// Evaluator.getFields() and Trainer.get*EvalFields(): a list of EvaluatorField
// (getName(), getValue(), getBetter(): 1 higher is better, -1 lower, 0 neither).
%template(EvaluatorFieldVector) std::vector<EvaluatorField>;

%define PD_JAVA_MATRIX_IO(INPUT)
  static Matrix* createDenseFromArray(INPUT data, size_t height, size_t width, bool useGpu = false) {
    pdCheckSize("Matrix.createDenseFromArray", data.size, height, width);
    return Matrix::createDenseFromNumpy(data.data, height, width, true, useGpu);
  }
  void copyFromArray(INPUT data, size_t height, size_t width) {
    pdCheckSize("Matrix.copyFromArray", data.size, height, width);
    $self->copyFromNumpyMat(data.data, height, width);
  }
%enddef
%define PD_JAVA_MATRIX_OUT(OUTPUT)
  // The whole matrix, row by row, into `out` (exactly height x width values).
  void copyToArray(OUTPUT out) {
    pdCheckSize("Matrix.copyToArray", out.size, $self->getHeight(), $self->getWidth());
    $self->copyToNumpyMat(out.data, $self->getHeight(), $self->getWidth());
  }
%enddef

%extend Matrix {
  PD_JAVA_MATRIX_IO(PdFloatArray)
  PD_JAVA_MATRIX_IO(PdFloatBuffer)
  PD_JAVA_MATRIX_OUT(PdFloatArray)
  PD_JAVA_MATRIX_OUT(PdFloatBuffer)
}

%extend Vector {
  static Vector* createFromArray(PdFloatArray data, bool useGpu = false) {
    return Vector::createVectorFromNumpy(data.data, data.size, true, useGpu);
  }
  static Vector* createFromArray(PdFloatBuffer data, bool useGpu = false) {
    return Vector::createVectorFromNumpy(data.data, data.size, true, useGpu);
  }
  void copyToNumpyArray(PdFloatBuffer out) { $self->copyToNumpyArray(out.data, out.size); }
  void copyFromNumpyArray(PdFloatBuffer data) { $self->copyFromNumpyArray(data.data, data.size); }
}

%extend IVector {
  static IVector* createFromArray(PdIntArray data, bool useGpu = false) {
    return IVector::createVectorFromNumpy(data.data, data.size, true, useGpu);
  }
}

%extend Arguments {
  // The slot's value: a height x width copy of row-major `data`.
  void setSlotValueFromArray(size_t idx, PdFloatArray data, size_t height, size_t width) {
    pdCheckSize("Arguments.setSlotValueFromArray", data.size, height, width);
    $self->setSlotValueFromBuffer(idx, data.data, height, width);
  }
  void setSlotValueFromArray(size_t idx, PdFloatBuffer data, size_t height, size_t width) {
    pdCheckSize("Arguments.setSlotValueFromArray", data.size, height, width);
    $self->setSlotValueFromBuffer(idx, data.data, height, width);
  }
}

%pragma(java) modulecode=%{
  /** v1 style: Paddle.initPaddle("--use_gpu=0", "--trainer_count=1"). */
  public static void initPaddle(String... flags) {
    initPaddle(new StringVector(flags));
  }

  /** The buffer's elements from position to limit, after checking the engine can use its memory. */
  static java.nio.FloatBuffer directView(java.nio.FloatBuffer buffer, boolean written) {
    if (buffer == null) throw new NullPointerException("the FloatBuffer is null");
    if (!buffer.isDirect())
      throw new IllegalArgumentException("the FloatBuffer must be direct (ByteBuffer.allocateDirect(4 * n)"
          + ".order(ByteOrder.nativeOrder()).asFloatBuffer()); pass a float[] otherwise");
    if (buffer.order() != java.nio.ByteOrder.nativeOrder())
      throw new IllegalArgumentException("the FloatBuffer is " + buffer.order() + ", the engine needs "
          + java.nio.ByteOrder.nativeOrder() + " (ByteBuffer.order(ByteOrder.nativeOrder()))");
    if (written && buffer.isReadOnly()) throw new java.nio.ReadOnlyBufferException();
    return buffer.slice();
  }
%}

// libpaddle_jni.so: the path in the system property paddle.jni.library, else the
// one beside paddle.jar, else from java.library.path.
%pragma(java) jniclasscode=%{
  static {
    String path = System.getProperty("paddle.jni.library");
    if (path == null) {
      try {
        java.io.File jar = new java.io.File(PaddleJNI.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        java.io.File beside = new java.io.File(jar.isDirectory() ? jar : jar.getParentFile(), "libpaddle_jni.so");
        if (beside.isFile()) path = beside.getAbsolutePath();
      } catch (Exception e) {
        // no code source: fall back to java.library.path
      }
    }
    if (path != null) System.load(path); else System.loadLibrary("paddle_jni");
  }
%}
