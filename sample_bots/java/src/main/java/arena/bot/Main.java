package arena.bot;

/**
 * The starter bot: the protocol layer driving the strategy. Run by the referee on tcp:
 * {@code arena check-bot machiavelli --tcp -- java -jar sample_bots/java/target/bot.jar}
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(Protocol.run(args, new Strategy(), "starter-java", "1.0.0"));
  }
}
