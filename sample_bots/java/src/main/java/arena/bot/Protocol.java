package arena.bot;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.json.JSONException;
import org.json.JSONObject;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The protocol layer: connect, handshake, receive requests, send actions, shutdown. It knows
 * nothing about any game; the {@link Strategy} decides every action. Spec:
 * protocol/PROTOCOL.md. Every message is one ZeroMQ frame of UTF-8 JSON.
 *
 * <p>JeroMQ 0.6.0 (pure Java) speaks ZeroMQ over tcp; its {@code ipc://} is not the Unix
 * socket libzmq uses, so run the referee on tcp for this bot (see README.md).
 */
public final class Protocol {
  public static final int VERSION = 1;

  /**
   * How long the ZMTP handshake of a connection may take before JeroMQ drops it and connects
   * again (its default is 30 s). JeroMQ 0.6.0 sometimes never starts the handshake of a fresh
   * tcp connection (its I/O poller can skip registering the new channel when the connect
   * completes in the same pass as another command; about 1 connection in 75 here): the hello
   * then waited 30 s, past the referee's startup limit. With this limit it goes out on the
   * next connection, about 2 s late. A real handshake on loopback takes milliseconds; one
   * that a busy machine slows past the limit is simply tried again.
   */
  public static final int HANDSHAKE_MS = 2000;
  private static final Set<String> REFEREE_TYPES =
      Set.of("welcome", "game_start", "request", "game_over", "error", "shutdown");

  private Protocol() {}

  /** What a bot plugs in: {@code act} answers a request; {@code game} is the game_start. */
  public interface Strategy {
    Object act(JSONObject request, JSONObject game);

    default void gameOver(JSONObject message) {}

    /** A new game: reset per-game state and seed the generator from {@link #botSeed}. */
    default void gameStart(JSONObject message) {}
  }

  /**
   * {@code game_start.bot_seed}: the seed for this game's random choices (an integer below
   * 2^53).
   *
   * @throws IllegalArgumentException when it is absent or not such an integer
   */
  public static long botSeed(JSONObject gameStart) {
    Object seed = gameStart.opt("bot_seed");
    if (seed instanceof Integer || seed instanceof Long) {
      long value = ((Number) seed).longValue();
      if (value >= 0 && value < 1L << 53) return value;
    }
    throw new IllegalArgumentException(
        "game_start.bot_seed must be an integer in [0, 2^53), got " + seed);
  }

  /** The hello frame a bot sends first. */
  public static byte[] encodeHello(String token, String name, String version) {
    JSONObject m = new JSONObject()
        .put("type", "hello").put("token", token).put("name", name)
        .put("version", version).put("protocol", VERSION);
    return m.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The action frame answering request {@code id}. */
  public static byte[] encodeAction(long id, Object action) {
    JSONObject m = new JSONObject().put("type", "action").put("id", id)
        .put("action", action == null ? JSONObject.NULL : action);
    return m.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Parse a referee frame; throws IllegalArgumentException for anything else. */
  public static JSONObject decode(byte[] frame) {
    JSONObject m;
    try {
      m = new JSONObject(new String(frame, StandardCharsets.UTF_8));
    } catch (JSONException e) {
      throw new IllegalArgumentException("not a JSON object: " + e.getMessage());
    }
    if (!REFEREE_TYPES.contains(m.optString("type"))) {
      throw new IllegalArgumentException("not a referee message");
    }
    return m;
  }

  /** The endpoint and token: --endpoint/--token, else ARENA_ENDPOINT/ARENA_TOKEN. */
  public static String[] where(List<String> args, Map<String, String> env) {
    String endpoint = env.get("ARENA_ENDPOINT");
    String token = env.get("ARENA_TOKEN");
    for (int i = 0; i + 1 < args.size(); i++) {
      if (args.get(i).equals("--endpoint")) endpoint = args.get(++i);
      else if (args.get(i).equals("--token")) token = args.get(++i);
    }
    if (endpoint == null || endpoint.isEmpty() || token == null) {
      throw new IllegalArgumentException(
          "no endpoint/token: run me from `arena`, or pass --endpoint and --token");
    }
    return new String[] {endpoint, token};
  }

  /** Connect, say hello and play until shutdown. Returns the exit status. */
  public static int run(String[] args, Strategy strategy, String name, String version) {
    String[] where = where(List.of(args), System.getenv());
    if (where[0].startsWith("ipc://")) {
      System.err.println("JeroMQ cannot connect to " + where[0]
          + ": run the referee on tcp (e.g. arena check-bot --tcp)");
      return 2;
    }
    try (ZContext context = new ZContext()) {
      ZMQ.Socket socket = context.createSocket(SocketType.DEALER);
      socket.setLinger(1000);
      socket.setHandshakeIvl(HANDSHAKE_MS);
      socket.connect(where[0]);
      socket.send(encodeHello(where[1], name, version));
      JSONObject game = null;
      boolean welcomed = false;
      while (true) {
        byte[] frame = socket.recv();
        if (frame == null) return 1; // interrupted
        JSONObject m;
        try {
          m = decode(frame);
        } catch (IllegalArgumentException e) {
          System.err.println("arena: ignored a frame: " + e.getMessage());
          continue;
        }
        switch (m.getString("type")) {
          case "welcome" -> welcomed = true;
          case "game_start" -> {
            game = m;
            strategy.gameStart(m);
          }
          case "request" -> socket.send(encodeAction(m.getLong("id"), strategy.act(m, game)));
          case "game_over" -> strategy.gameOver(m);
          case "error" -> { // information only, except before welcome: then we have no seat
            System.err.println("arena: " + m.optString("code") + ": " + m.optString("detail"));
            if (!welcomed) return 1;
          }
          case "shutdown" -> {
            return 0;
          }
          default -> { }
        }
      }
    }
  }
}
