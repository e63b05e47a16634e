// Trains the digits MLP through the engine's Java binding: no Python at run time.
//
//   java -cp build/paddle.jar:build Train CONFIG_JSON DATA [PASSES] [SAVE_DIR]
//
// CONFIG_JSON is the whole TrainerConfig as JSON, written beforehand by
//   paddle dump_config ../mnist/mlp.py --whole --format=json > mlp.json
// DATA a file of prepare_data.py. Prints the average cost of every 10 batches
// and of each pass; SAVE_DIR, when given, receives the parameters (v1's format).
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import org.paddle.Arguments;
import org.paddle.StringVector;
import org.paddle.Trainer;

public class Train {
  public static void main(String[] args) throws IOException {
    if (args.length < 2) {
      System.err.println("usage: Train CONFIG_JSON DATA [PASSES] [SAVE_DIR]");
      System.exit(2);
    }
    String config = new String(Files.readAllBytes(Paths.get(args[0])), "UTF-8");
    Digits data = Digits.read(args[1]);
    int passes = args.length > 2 ? Integer.parseInt(args[2]) : 1;
    Trainer trainer = Trainer.create(config, false, 1, 1);
    // One slot per data layer, in the model's order: the pixels and the label ids.
    StringVector inputs = trainer.getGradientMachine().getInputLayerNames();
    int pixelSlot = inputs.indexOf("pixel"), labelSlot = inputs.indexOf("label");
    if (pixelSlot < 0 || labelSlot < 0) throw new IllegalArgumentException("expected data layers pixel and label, got " + inputs);
    int batchSize = (int) trainer.getBatchSize();

    trainer.startTrain();
    for (int pass = 0; pass < passes; ++pass) {
      trainer.startTrainPass(pass);
      trainer.startPeriod();
      int batch = 0;
      for (int start = 0; start < data.rows; start += batchSize) {
        int n = Math.min(batchSize, data.rows - start);
        Arguments in = Arguments.createArguments(2);
        data.pixels.limit((start + n) * data.cols).position(start * data.cols);
        in.setSlotValueFromArray(pixelSlot, data.pixels, n, data.cols);
        in.setSlotIdsFromBuffer(labelSlot, Arrays.copyOfRange(data.labels, start, start + n));
        trainer.trainOneDataBatch(n, in);
        in.delete();
        if (++batch % 10 == 0) {
          System.out.printf("pass %d batch %d cost %.6f%n", pass, batch,
                            trainer.getPeriodCost() / trainer.getPeriodSamples());
          trainer.startPeriod();
        }
      }
      trainer.finishTrainPass();
      System.out.printf("pass %d done: %d samples, cost %.6f%n", pass, trainer.getPassSamples(),
                        trainer.getPassCost() / trainer.getPassSamples());
    }
    trainer.finishTrain();
    if (args.length > 3) {
      Files.createDirectories(Paths.get(args[3]));
      trainer.saveParameters(args[3]);
      System.out.println("saved the parameters in " + args[3]);
    }
  }
}
