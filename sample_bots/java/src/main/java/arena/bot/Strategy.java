package arena.bot;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * The strategy: replace {@link #act} with your own. Plays both games legally. Every random
 * choice comes from {@code random}, re-seeded from {@code game_start.bot_seed} at each game, so
 * the same game seed replays the same game.
 */
public final class Strategy implements Protocol.Strategy {
  private static final String[] RANKS =
      {"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"};
  private static final String SUITS = "SHDC";
  private SplittableRandom random = newRandom(0);

  /** This game's generator: {@link SplittableRandom}, whose sequence a seed fixes. */
  static SplittableRandom newRandom(long seed) {
    return new SplittableRandom(seed);
  }

  @Override
  public void gameStart(JSONObject message) {
    long seed = 0;
    try {
      seed = Protocol.botSeed(message);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage() + ": seeding with 0");
    }
    random = newRandom(seed);
  }

  @Override
  public Object act(JSONObject request, JSONObject game) {
    String name = game == null ? "" : game.optString("game");
    if (name.startsWith("machiavelli-rummy@")) return rummy(request, game);
    JSONArray options = request.optJSONArray("options");
    if (options == null || options.isEmpty()) {
      System.err.println("no strategy for " + name + " decision " + request.optString("kind"));
      return null;
    }
    // machiavelli: every request lists its legal options; build when we can
    List<Object> builds = new ArrayList<>();
    for (Object o : options) {
      if (o instanceof JSONObject j && "build".equals(j.optString("type"))) builds.add(o);
    }
    if (!builds.isEmpty()) return builds.get(random.nextInt(builds.size()));
    return options.get(random.nextInt(options.length()));
  }

  // ---- machiavelli-rummy: cards are codes such as "7H", "10S", "QD", "JK" (joker).

  /** Rank 1..13 of a natural card, 0 for the joker or a bad code. */
  static int rank(String code) {
    if (code.length() < 2 || code.equals("JK")) return 0;
    String r = code.substring(0, code.length() - 1);
    for (int i = 0; i < RANKS.length; i++) {
      if (RANKS[i].equals(r) && SUITS.indexOf(suit(code)) >= 0) return i + 1;
    }
    return 0;
  }

  static char suit(String code) {
    return code.charAt(code.length() - 1);
  }

  static String code(int rank, char suit) {
    return RANKS[(rank - 1) % 13] + suit;
  }

  /** Three hand cards forming a group (one rank, three suits) or a run; null if none. */
  static List<String> meldFromHand(List<String> hand) {
    boolean[][] have = new boolean[4][15];
    for (String c : hand) {
      int r = rank(c);
      if (r == 0) continue;
      int s = SUITS.indexOf(suit(c));
      have[s][r] = true;
      if (r == 1) have[s][14] = true; // the ace also ranks above the king
    }
    for (int r = 1; r <= 13; r++) {
      List<String> meld = new ArrayList<>();
      for (int s = 0; s < 4 && meld.size() < 3; s++) if (have[s][r]) meld.add(code(r, SUITS.charAt(s)));
      if (meld.size() == 3) return meld;
    }
    for (int s = 0; s < 4; s++) {
      for (int low = 1; low <= 12; low++) {
        if (have[s][low] && have[s][low + 1] && have[s][low + 2]) {
          char suit = SUITS.charAt(s);
          return List.of(code(low, suit), code(low + 1, suit), code(low + 2, suit));
        }
      }
    }
    return null;
  }

  /** The cards that extend a joker-free meld by one (either end of a run). */
  static List<String> extensions(List<String> meld) {
    List<String> out = new ArrayList<>();
    boolean group = true, ace = false, king = false;
    for (String c : meld) {
      if (rank(c) == 0) return out; // a joker: where it stands is ambiguous
      group &= rank(c) == rank(meld.get(0));
      ace |= rank(c) == 1;
      king |= rank(c) == 13;
    }
    if (meld.isEmpty()) return out;
    if (group) {
      if (meld.size() >= 4) return out;
      for (char s : SUITS.toCharArray()) {
        if (meld.stream().noneMatch(c -> suit(c) == s)) out.add(code(rank(meld.get(0)), s));
      }
      return out;
    }
    if (meld.size() >= 13) return out; // a run holds at most 13 cards (the ace is low or high)
    int lo = 99, hi = 0;
    for (String c : meld) {
      int r = ace && king && rank(c) == 1 ? 14 : rank(c);
      lo = Math.min(lo, r);
      hi = Math.max(hi, r);
    }
    char suit = suit(meld.get(0));
    if (lo > 1) out.add(code(lo - 1, suit));
    if (hi < 13 || (hi == 13 && lo > 1)) out.add(code(hi + 1, suit));
    return out;
  }

  private static List<String> strings(JSONArray array) {
    List<String> out = new ArrayList<>();
    for (int i = 0; array != null && i < array.length(); i++) out.add(array.getString(i));
    return out;
  }

  /** Lay a meld from hand, else extend a meld on the table, else draw. */
  static JSONObject rummy(JSONObject request, JSONObject game) {
    JSONObject obs = request.getJSONObject("observation");
    List<String> hand = strings(obs.optJSONArray("hand"));
    JSONArray table = obs.optJSONArray("table");
    if (table == null) table = new JSONArray();
    List<String> meld = meldFromHand(hand);
    if (meld != null) {
      return new JSONObject().put("type", "play").put("table", new JSONArray(table.toList()).put(meld));
    }
    JSONObject rules = game.optJSONObject("rules");
    JSONArray opened = obs.optJSONArray("opened");
    boolean mustOpen = rules != null && "meld-from-hand".equals(rules.optString("opening"))
        && !(opened != null && opened.optBoolean(obs.optInt("seat")));
    for (int i = 0; !mustOpen && i < table.length(); i++) {
      for (String c : extensions(strings(table.getJSONArray(i)))) {
        if (hand.contains(c)) {
          JSONArray next = new JSONArray(table.toList());
          next.getJSONArray(i).put(c);
          return new JSONObject().put("type", "play").put("table", next);
        }
      }
    }
    return new JSONObject().put("type", "draw");
  }
}
