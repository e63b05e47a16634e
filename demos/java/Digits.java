import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.FileChannel;

// A data file of prepare_data.py, memory-mapped: int32 rows, int32 cols,
// float32 pixels [rows * cols], int32 labels [rows], little-endian.
class Digits {
  int rows, cols;
  FloatBuffer pixels;  // direct, in the machine's byte order: the engine reads it in place
  int[] labels;

  static Digits read(String path) throws IOException {
    try (RandomAccessFile file = new RandomAccessFile(path, "r"); FileChannel channel = file.getChannel()) {
      ByteBuffer all = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size()).order(ByteOrder.LITTLE_ENDIAN);
      Digits d = new Digits();
      d.rows = all.getInt(0);
      d.cols = all.getInt(4);
      long expected = 8L + 4L * d.rows * d.cols + 4L * d.rows;
      if (d.rows <= 0 || d.cols <= 0 || channel.size() != expected)
        throw new IOException(path + ": not a digits data file (" + channel.size() + " bytes, " + expected + " expected)");
      d.pixels = all.position(8).slice().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
      d.pixels.limit(d.rows * d.cols);
      d.labels = new int[d.rows];
      all.position(8 + 4 * d.rows * d.cols).slice().order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(d.labels);
      return d;
    }
  }
}
