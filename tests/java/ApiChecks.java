// Checks of the Java binding that tests/java/test_java.py runs: each line printed
// is "name: result"; an engine error must arrive as a Java exception, not a crash.
//   java ApiChecks MERGED_MODEL INPUT_WIDTH TRAINER_CONFIG_JSON
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Arrays;
import org.paddle.*;

public class ApiChecks {
  interface Body {
    Object run() throws Exception;
  }

  static void check(String name, Body body) {
    String result;
    try {
      Object value = body.run();
      result = "ok " + value;
    } catch (Exception e) {
      result = e.getClass().getName() + ": " + e.getMessage();
    }
    System.out.println(name + ": " + result.replace('\n', ' '));
  }

  static FloatBuffer direct(float[] values, ByteOrder order) {
    FloatBuffer b = ByteBuffer.allocateDirect(4 * values.length).order(order).asFloatBuffer();
    b.put(values).flip();
    return b;
  }

  static float[] predict(Predictor p, float[] input, int width) {
    Arguments in = Arguments.createArguments(1);
    in.setSlotValueFromArray(0, input, input.length / width, width);
    Matrix value = p.forward(in).getSlotValue(0);
    float[] out = new float[(int) (value.getHeight() * value.getWidth())];
    value.copyToArray(out);
    return out;
  }

  public static void main(String[] args) {
    String model = args[0];
    int width = Integer.parseInt(args[1]);
    float[] six = {1, 2, 3, 4, 5, 6};

    check("bad model path", () -> Predictor.createFromMergedModel(model + ".missing"));
    check("bad input shape", () -> {
      Predictor p = Predictor.createFromMergedModel(model);
      Arguments in = Arguments.createArguments(1);
      in.setSlotValueFromArray(0, new float[2 * (width - 1)], 2, width - 1);
      return p.forward(in);
    });
    check("array size", () -> Matrix.createDenseFromArray(new float[5], 2, 3));
    check("index", () -> Matrix.createDenseFromArray(six, 2, 3).get(2, 0));
    check("slot index", () -> Arguments.createArguments(1).getSlotValue(3));
    check("null array", () -> Matrix.createDenseFromArray((float[]) null, 2, 3));
    check("heap buffer", () -> Matrix.createDenseFromArray(FloatBuffer.wrap(six), 2, 3));
    check("byte order", () -> Matrix.createDenseFromArray(direct(six, ByteOrder.BIG_ENDIAN.equals(
        ByteOrder.nativeOrder()) ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN), 2, 3));
    check("array round trip", () -> {
      float[] out = new float[6];
      Matrix.createDenseFromArray(six, 2, 3).copyToArray(out);
      return Arrays.toString(out);
    });
    check("buffer round trip", () -> {
      // From position to limit: the first value is skipped.
      FloatBuffer in = direct(new float[] {9, 1, 2, 3, 4, 5, 6}, ByteOrder.nativeOrder());
      in.position(1);
      Matrix m = Matrix.createDenseFromArray(in, 3, 2);
      FloatBuffer out = direct(new float[6], ByteOrder.nativeOrder());
      m.copyToArray(out);
      float[] values = new float[6];
      out.get(values);
      return m.getHeight() + "x" + m.getWidth() + " " + Arrays.toString(values);
    });
    check("vectors", () -> {
      Vector v = Vector.createFromArray(new float[] {1.5f, -2});
      IVector ids = IVector.createFromArray(new int[] {7, 8, 9});
      int[] back = new int[3];
      ids.copyToNumpyArray(back);
      return v.getSize() + " " + v.get(1) + " " + Arrays.toString(back);
    });
    check("wrong output size", () -> {
      Matrix.createDenseFromArray(six, 2, 3).copyToArray(new float[5]);
      return null;
    });
    check("gradient machine equals predictor", () -> {
      float[] input = new float[3 * width];
      for (int i = 0; i < input.length; ++i) input[i] = (i % 17) / 16.0f;
      Arguments in = Arguments.createArguments(1);
      in.setSlotValueFromArray(0, input, 3, width);
      GradientMachine gm = GradientMachine.createFromMergedModel(model);
      Arguments out = Arguments.createArguments(0);
      gm.forward(in, out, PassType.PASS_TEST);
      float[] a = new float[(int) (out.getSlotValue(0).getHeight() * out.getSlotValue(0).getWidth())];
      out.getSlotValue(0).copyToArray(a);
      float[] b = new float[a.length];
      Predictor.createFromMergedModel(model).forward(in).getSlotValue(0).copyToArray(b);
      // within fp32 rounding: the Predictor multiplies by packed weights (another summation order)
      boolean close = a.length == b.length;
      for (int i = 0; close && i < a.length; ++i) close = Math.abs(a[i] - b[i]) <= 1e-6f + 1e-5f * Math.abs(a[i]);
      return close + " " + gm.getParameterSize();
    });
    check("predictor threads", () -> {
      // One Predictor serving 4 Java threads at once gives what it gives one thread.
      Predictor p = Predictor.createFromMergedModel(model);
      float[][] inputs = new float[4][16 * width];
      float[][] alone = new float[4][], together = new float[4][];
      for (int t = 0; t < 4; ++t) {
        for (int i = 0; i < inputs[t].length; ++i) inputs[t][i] = ((i * 7 + t * 13) % 23) / 22.0f;
        alone[t] = predict(p, inputs[t], width);
      }
      Thread[] threads = new Thread[4];
      for (int t = 0; t < 4; ++t) {
        final int k = t;
        threads[t] = new Thread(() -> {
          for (int r = 0; r < 20; ++r) together[k] = predict(p, inputs[k], width);
        });
        threads[t].start();
      }
      for (Thread t : threads) t.join();
      return Arrays.deepEquals(alone, together) && !Arrays.equals(alone[0], alone[1]);
    });
    check("v1 training loop", () -> {
      // v1's loop over one batch (forwardBackward, ParameterUpdater.update per parameter):
      // the batch's cost must fall.
      TrainerConfig conf = TrainerConfig.createFromJson(new String(Files.readAllBytes(Paths.get(args[2])), "UTF-8"));
      GradientMachine gm = GradientMachine.createByModelConfig(conf.getModelConfig());
      ParameterUpdater updater = ParameterUpdater.createLocalUpdater(conf.getOptimizationConfig());
      updater.init(gm);
      int n = 20;
      float[] pixels = new float[n * width];
      int[] labels = new int[n];
      for (int i = 0; i < n; ++i) {
        labels[i] = i % 10;
        pixels[i * width + labels[i]] = 1;
      }
      StringVector inputs = gm.getInputLayerNames();
      Arguments in = Arguments.createArguments(2);
      in.setSlotValueFromArray(inputs.indexOf("pixel"), pixels, n, width);
      in.setSlotIdsFromBuffer(inputs.indexOf("label"), labels);
      updater.startPass();
      double first = 0, last = 0;
      for (int step = 0; step < 20; ++step) {
        PassType type = updater.startBatch(n);
        Arguments out = Arguments.createArguments(0);
        gm.forwardBackward(in, out, type);
        for (long i = 0; i < gm.getNonStaticParameterSize(); ++i) updater.update(gm.getNonStaticParameter(i));
        last = out.sum() / n;
        if (step == 0) first = last;
        updater.finishBatch((float) last);
      }
      updater.finishPass();
      return (last < first / 2) + String.format(" %.4f -> %.4f", first, last);
    });
    check("evaluator fields", () -> {
      // What the evaluators print, as records: name, value and which way is better (-1: lower).
      TrainerConfig conf = TrainerConfig.createFromJson(new String(Files.readAllBytes(Paths.get(args[2])), "UTF-8"));
      GradientMachine gm = GradientMachine.createByModelConfig(conf.getModelConfig());
      int n = 8;
      int[] labels = new int[n];
      for (int i = 0; i < n; ++i) labels[i] = i % 10;
      StringVector inputs = gm.getInputLayerNames();
      Arguments in = Arguments.createArguments(2);
      in.setSlotValueFromArray(inputs.indexOf("pixel"), new float[n * width], n, width);
      in.setSlotIdsFromBuffer(inputs.indexOf("label"), labels);
      Evaluator evaluator = gm.makeEvaluator();
      gm.forward(in, Arguments.createArguments(0), PassType.PASS_TEST);
      gm.eval(evaluator);
      EvaluatorFieldVector fields = evaluator.getFields();
      EvaluatorField f = fields.get(0);
      return fields.size() + " " + f.getName() + " " + f.getBetter() + " " + (f.getValue() == evaluator.getValue(f.getName()));
    });
    check("init", () -> {
      Paddle.initPaddle("--use_gpu=0", "--trainer_count=1");
      return Paddle.isUsingGpu() + " " + Paddle.getTrainerCount();
    });
  }
}
