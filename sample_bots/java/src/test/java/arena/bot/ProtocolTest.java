package arena.bot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ArrayList;
import java.util.SplittableRandom;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.jupiter.api.Test;

/** The protocol layer against the shared test vectors in protocol/examples. */
class ProtocolTest {
  static final Path EXAMPLES = Path.of(System.getProperty("arena.examples", "../../protocol/examples"));

  static byte[] raw(String name) throws IOException {
    return Files.readAllBytes(EXAMPLES.resolve(name + ".json"));
  }

  static JSONObject example(String name) throws IOException {
    return new JSONObject(new String(raw(name), StandardCharsets.UTF_8));
  }

  static JSONObject parse(byte[] frame) {
    return new JSONObject(new String(frame, StandardCharsets.UTF_8));
  }

  @Test
  void helloEncodesToTheExample() throws IOException {
    JSONObject ex = example("hello");
    byte[] frame = Protocol.encodeHello(ex.getString("token"), ex.getString("name"), ex.getString("version"));
    assertTrue(parse(frame).similar(ex), new String(frame, StandardCharsets.UTF_8));
  }

  @Test
  void actionEncodesToTheExample() throws IOException {
    JSONObject ex = example("action");
    assertTrue(parse(Protocol.encodeAction(ex.getLong("id"), ex.get("action"))).similar(ex));
    String line = new String(Protocol.encodeAction(1, "é\n"), StandardCharsets.UTF_8);
    assertFalse(line.contains("\n"), "a frame is one line");
    assertEquals("é\n", new JSONObject(line).getString("action"));
  }

  @Test
  void decodesEveryRefereeExample() throws IOException {
    for (String name : List.of("welcome", "game_start", "request", "game_over", "error", "shutdown")) {
      JSONObject m = Protocol.decode(raw(name));
      assertEquals(name, m.getString("type"));
      assertTrue(m.similar(example(name)), name);
    }
    assertThrows(IllegalArgumentException.class, () -> Protocol.decode(raw("hello")));
    assertThrows(IllegalArgumentException.class,
        () -> Protocol.decode("not json".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void conversationDecodesAndReencodes() throws IOException {
    int bots = 0;
    for (String line : Files.readAllLines(EXAMPLES.resolve("conversation.jsonl"))) {
      JSONObject entry = new JSONObject(line);
      JSONObject m = entry.getJSONObject("message");
      byte[] frame = m.toString().getBytes(StandardCharsets.UTF_8);
      if (entry.getString("from").equals("referee")) {
        Protocol.decode(frame);
        continue;
      }
      byte[] again = m.getString("type").equals("hello")
          ? Protocol.encodeHello(m.getString("token"), m.getString("name"), m.getString("version"))
          : Protocol.encodeAction(m.getLong("id"), m.get("action"));
      assertTrue(parse(again).similar(m), line);
      bots++;
    }
    assertTrue(bots > 0);
  }

  @Test
  void flagsWinOverEnvironment() {
    Map<String, String> env = Map.of("ARENA_ENDPOINT", "ipc://e", "ARENA_TOKEN", "k");
    String[] w = Protocol.where(List.of("--endpoint", "tcp://x:1"), env);
    assertEquals("tcp://x:1", w[0]);
    assertEquals("k", w[1]);
    assertThrows(IllegalArgumentException.class, () -> Protocol.where(List.of(), Map.of()));
  }

  @Test
  void strategyAnswersWithAnOption() throws IOException {
    JSONObject request = example("request");
    Object action = new Strategy().act(request, example("game_start"));
    boolean found = false;
    for (Object o : request.getJSONArray("options")) found |= ((JSONObject) o).similar(action);
    assertTrue(found);
  }

  @Test
  void rummyMeldsExtendsOrDraws() {
    assertEquals(List.of("QS", "KS", "AS"), Strategy.meldFromHand(List.of("QS", "KS", "AS", "2D")));
    assertEquals(List.of("7S", "7H", "7C"), Strategy.meldFromHand(List.of("7H", "7S", "7H", "7C")));
    assertEquals(List.of("10S", "AS"), Strategy.extensions(List.of("JS", "QS", "KS")));
    assertEquals(List.of("JS"), Strategy.extensions(List.of("QS", "KS", "AS")));
    List<String> full = List.of("AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H",
        "JH", "QH", "KH");
    assertEquals(List.of(), Strategy.extensions(full)); // A..K: the ace cannot be high too
    assertEquals(List.of("4C"), Strategy.extensions(List.of("4S", "4H", "4D")));
    JSONObject game = new JSONObject("{\"game\":\"machiavelli-rummy@1\",\"rules\":{}}");
    JSONObject request = new JSONObject("{\"observation\":{\"hand\":[\"5D\",\"9C\"],"
        + "\"table\":[[\"6D\",\"7D\",\"8D\"]],\"seat\":0,\"opened\":[false]}}");
    assertTrue(Strategy.rummy(request, game).similar(
        new JSONObject().put("type", "play").put("table", new JSONArray("[[\"6D\",\"7D\",\"8D\",\"5D\"]]"))));
    JSONObject opening = new JSONObject("{\"game\":\"machiavelli-rummy@1\",\"rules\":{\"opening\":\"meld-from-hand\"}}");
    assertEquals("draw", Strategy.rummy(request, opening).getString("type"));
  }

  @Test
  void botSeedIsReadFromTheExample() throws IOException {
    assertEquals(6095745163040713L, Protocol.botSeed(example("game_start")));
    for (String bad : List.of("{}", "{\"bot_seed\":1.5}", "{\"bot_seed\":-1}", "{\"bot_seed\":\"7\"}")) {
      assertThrows(IllegalArgumentException.class, () -> Protocol.botSeed(new JSONObject(bad)), bad);
    }
  }

  static List<Long> draws(SplittableRandom random, int n) {
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < n; i++) out.add(random.nextLong());
    return out;
  }

  @Test
  void twoGeneratorsFromTheSameSeedAgree() throws IOException {
    long seed = Protocol.botSeed(example("game_start"));
    assertEquals(draws(Strategy.newRandom(seed), 20), draws(Strategy.newRandom(seed), 20));
    assertNotEquals(draws(Strategy.newRandom(seed), 20), draws(Strategy.newRandom(seed + 1), 20));
  }

  static List<Integer> play(Strategy strategy, JSONObject game) {
    JSONArray options = new JSONArray();
    for (int i = 0; i < 9; i++) options.put(new JSONObject().put("type", "pick").put("i", i));
    JSONObject request = new JSONObject().put("options", options);
    strategy.gameStart(game);
    List<Integer> picks = new ArrayList<>();
    for (int i = 0; i < 30; i++) picks.add(((JSONObject) strategy.act(request, game)).getInt("i"));
    return picks;
  }

  @Test
  void strategyReplaysAfterGameStart() throws IOException {
    Strategy strategy = new Strategy();
    JSONObject start = example("game_start");
    List<Integer> first = play(strategy, start);
    assertEquals(first, play(strategy, start));
    assertNotEquals(first, play(strategy, new JSONObject(start.toString()).put("bot_seed", 7)));
  }
}
