/* The protocol layer against the shared test vectors in protocol/examples.
 * Prints one line per failure and "N passed, N failed" at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "rng.h"
#include "strategy.h"

#ifndef EXAMPLES
#define EXAMPLES "../../protocol/examples"
#endif

static int passed, failed;

#define CHECK(cond, what)                                                  \
    do {                                                                   \
        if (cond) passed++;                                                \
        else { failed++; fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, what); } \
    } while (0)

static char *slurp(const char *name, size_t *size) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.json", EXAMPLES, name);
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *data = malloc((size_t)n + 1);
    *size = fread(data, 1, (size_t)n, f);
    data[*size] = 0;
    fclose(f);
    return data;
}

static cJSON *example(const char *name) {
    size_t size;
    char *data = slurp(name, &size);
    cJSON *json = cJSON_ParseWithLength(data, size);
    free(data);
    return json;
}

static int same_json(const char *text, const cJSON *expected) {
    cJSON *got = cJSON_Parse(text);
    int same = cJSON_Compare(got, expected, 1);
    cJSON_Delete(got);
    return same;
}

static const char *str(const cJSON *obj, const char *key) {
    return cJSON_GetObjectItemCaseSensitive(obj, key)->valuestring;
}

static void test_encoders(void) {
    cJSON *hello = example("hello");
    char *text = arena_encode_hello(str(hello, "token"), str(hello, "name"), str(hello, "version"));
    CHECK(same_json(text, hello), "hello encodes to the example");
    CHECK(!strchr(text, '\n'), "a frame is one line");
    free(text);
    cJSON *action = example("action");
    long id = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(action, "id"));
    text = arena_encode_action(id, cJSON_GetObjectItemCaseSensitive(action, "action"));
    CHECK(same_json(text, action), "action encodes to the example");
    free(text);
    cJSON_Delete(hello);
    cJSON_Delete(action);
}

static void test_decoder(void) {
    const char *names[] = {"welcome", "game_start", "request", "game_over", "error", "shutdown"};
    for (int i = 0; i < 6; i++) {
        size_t size;
        char *data = slurp(names[i], &size);
        cJSON *message = arena_decode(data, size), *expected = example(names[i]);
        CHECK(message && strcmp(arena_type(message), names[i]) == 0, names[i]);
        CHECK(cJSON_Compare(message, expected, 1), names[i]);
        cJSON_Delete(message);
        cJSON_Delete(expected);
        free(data);
    }
    size_t size;
    char *hello = slurp("hello", &size);
    CHECK(arena_decode(hello, size) == NULL, "a hello is not a referee message");
    CHECK(arena_decode("not json", 8) == NULL, "not JSON is refused");
    CHECK(arena_decode("[1]", 3) == NULL, "an array is refused");
    free(hello);
}

static void test_where(void) {
    char *argv[] = {"bot", "--endpoint", "tcp://x:1", "--token", "t", NULL};
    const char *endpoint, *token;
    CHECK(arena_where(5, argv, &endpoint, &token) == 0 && strcmp(endpoint, "tcp://x:1") == 0
          && strcmp(token, "t") == 0, "flags give the endpoint and token");
}

static void test_strategy(void) {
    cJSON *request = example("request"), *game = example("game_start");
    cJSON *action = strategy_act(request, game);
    int found = 0;
    const cJSON *option;
    cJSON_ArrayForEach(option, cJSON_GetObjectItemCaseSensitive(request, "options"))
        found |= cJSON_Compare(option, action, 1);
    CHECK(found, "the strategy answers with one of the options");
    cJSON_Delete(action);
    cJSON_Delete(request);
    cJSON_Delete(game);

    char out[4][4];
    cJSON *hand = cJSON_Parse("[\"QS\",\"KS\",\"AS\",\"2D\"]");
    CHECK(rummy_meld_from_hand(hand, out) && !strcmp(out[0], "QS") && !strcmp(out[2], "AS"),
          "a run Q-K-A from hand");
    cJSON_Delete(hand);
    cJSON *run = cJSON_Parse("[\"JS\",\"QS\",\"KS\"]"), *group = cJSON_Parse("[\"4S\",\"4H\",\"4D\"]");
    cJSON *joker = cJSON_Parse("[\"4S\",\"JK\",\"6S\"]");
    CHECK(rummy_extensions(run, out) == 2 && !strcmp(out[0], "10S") && !strcmp(out[1], "AS"),
          "a run extends at both ends");
    CHECK(rummy_extensions(group, out) == 1 && !strcmp(out[0], "4C"), "a group takes its last suit");
    CHECK(rummy_extensions(joker, out) == 0, "a meld with a joker is left alone");
    cJSON *full = cJSON_Parse("[\"AH\",\"2H\",\"3H\",\"4H\",\"5H\",\"6H\",\"7H\",\"8H\","
                              "\"9H\",\"10H\",\"JH\",\"QH\",\"KH\"]");
    CHECK(rummy_extensions(full, out) == 0, "A..K: the ace cannot be high as well");
    cJSON_Delete(full);
    cJSON_Delete(run);
    cJSON_Delete(group);
    cJSON_Delete(joker);

    cJSON *rummy = cJSON_Parse("{\"game\":\"machiavelli-rummy@1\",\"rules\":{}}");
    cJSON *req = cJSON_Parse("{\"observation\":{\"hand\":[\"5D\",\"9C\"],"
                             "\"table\":[[\"6D\",\"7D\",\"8D\"]],\"seat\":0,\"opened\":[false]}}");
    cJSON *expect = cJSON_Parse("{\"type\":\"play\",\"table\":[[\"6D\",\"7D\",\"8D\",\"5D\"]]}");
    action = strategy_act(req, rummy);
    CHECK(cJSON_Compare(action, expect, 1), "rummy extends a run on the table");
    cJSON_Delete(action);
    cJSON_Delete(req);
    cJSON_Delete(expect);
    cJSON_Delete(rummy);
}

static void test_seed(void) {
    cJSON *start = example("game_start");
    uint64_t seed = 0;
    CHECK(arena_bot_seed(start, &seed) == 0 && seed == UINT64_C(6095745163040713),
          "bot_seed is read from the game_start example, exactly");
    cJSON *bad = cJSON_Parse("{\"bot_seed\":1.5}"), *none = cJSON_Parse("{}");
    CHECK(arena_bot_seed(bad, &seed) != 0 && arena_bot_seed(none, &seed) != 0,
          "a missing or fractional bot_seed is refused");
    cJSON_Delete(bad);
    cJSON_Delete(none);

    /* the first outputs of Vigna's splitmix64.c for seed 1234567 */
    arena_rng ref = arena_rng_new(1234567);
    CHECK(arena_rng_next(&ref) == UINT64_C(6457827717110365317) &&
          arena_rng_next(&ref) == UINT64_C(3203168211198807973) &&
          arena_rng_next(&ref) == UINT64_C(9817491932198370423), "SplitMix64 reference sequence");
    arena_rng a = arena_rng_new(seed), b = arena_rng_new(seed), c = arena_rng_new(seed + 1);
    int same = 1, other = 0;
    for (int i = 0; i < 20; i++) {
        uint64_t x = arena_rng_next(&a);
        same &= x == arena_rng_next(&b);
        other |= x != arena_rng_next(&c);
    }
    CHECK(same, "two generators from the same seed give the same sequence");
    CHECK(other, "another seed gives another sequence");

    /* the strategy: the same bot_seed replays the same choices, another does not */
    cJSON *request = cJSON_Parse("{\"options\":[{\"i\":0},{\"i\":1},{\"i\":2},{\"i\":3},"
                                 "{\"i\":4},{\"i\":5},{\"i\":6},{\"i\":7},{\"i\":8}]}");
    int picks[3][30];
    for (int run = 0; run < 3; run++) {
        if (run == 2) cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(start, "bot_seed"), 7);
        strategy_game_start(start);
        for (int i = 0; i < 30; i++) {
            cJSON *action = strategy_act(request, start);
            picks[run][i] = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(action, "i"));
            cJSON_Delete(action);
        }
    }
    CHECK(memcmp(picks[0], picks[1], sizeof picks[0]) == 0, "the strategy replays after game_start");
    CHECK(memcmp(picks[0], picks[2], sizeof picks[0]) != 0, "another bot_seed, other choices");
    cJSON_Delete(request);
    cJSON_Delete(start);
}

int main(void) {
    test_encoders();
    test_decoder();
    test_where();
    test_strategy();
    test_seed();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
