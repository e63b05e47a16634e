// Predicts the digits test set with a merged model (`paddle merge_model`), through
// the engine's Java binding: no Python at run time.
//
//   java -cp build/paddle.jar:build Predict MODEL DATA [PREDICTIONS]
//
// DATA is a file of prepare_data.py; PREDICTIONS, when given, receives the class
// probabilities as little-endian float32 [rows, classes].
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.paddle.Arguments;
import org.paddle.Matrix;
import org.paddle.Predictor;

public class Predict {
  static final int BATCH = 128;

  public static void main(String[] args) throws IOException {
    if (args.length < 2) {
      System.err.println("usage: Predict MODEL DATA [PREDICTIONS]");
      System.exit(2);
    }
    Digits data = Digits.read(args[1]);
    Predictor predictor = Predictor.createFromMergedModel(args[0]);
    float[] probabilities = null;
    int classes = 0, correct = 0;
    for (int start = 0; start < data.rows; start += BATCH) {
      int n = Math.min(BATCH, data.rows - start);
      // The batch's rows of the memory-mapped file go to the engine as they are.
      data.pixels.limit((start + n) * data.cols).position(start * data.cols);
      Arguments in = Arguments.createArguments(1);
      in.setSlotValueFromArray(0, data.pixels, n, data.cols);
      Arguments out = predictor.forward(in);
      Matrix value = out.getSlotValue(0);
      classes = (int) value.getWidth();
      if (probabilities == null) probabilities = new float[data.rows * classes];
      float[] batch = new float[n * classes];
      value.copyToArray(batch);
      System.arraycopy(batch, 0, probabilities, start * classes, batch.length);
      for (int i = 0; i < n; ++i) {
        if (argmax(batch, i * classes, classes) == data.labels[start + i]) ++correct;
      }
      value.delete();
      out.delete();
      in.delete();
    }
    System.out.printf("%d images, accuracy %.4f%n", data.rows, (double) correct / data.rows);
    if (args.length > 2) {
      ByteBuffer bytes = ByteBuffer.allocate(4 * probabilities.length).order(ByteOrder.LITTLE_ENDIAN);
      bytes.asFloatBuffer().put(probabilities);
      Files.write(Paths.get(args[2]), bytes.array());
    }
  }

  static int argmax(float[] v, int offset, int n) {
    int best = 0;
    for (int j = 1; j < n; ++j) if (v[offset + j] > v[offset + best]) best = j;
    return best;
  }
}
