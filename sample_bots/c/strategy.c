#include "strategy.h"

#include "protocol.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *RANKS[] = {"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"};
static const char SUITS[] = "SHDC";

/* This game's generator: never rand(), so that the same bot_seed gives the same game. */
static arena_rng rng;

void strategy_game_start(const cJSON *game_start) {
    uint64_t seed = 0;
    if (arena_bot_seed(game_start, &seed) != 0)
        fprintf(stderr, "game_start without a valid bot_seed: seeding with 0\n");
    rng = arena_rng_new(seed);
}

/* ---- machiavelli: every request lists its legal options; build when we can. ---- */

static cJSON *machiavelli(const cJSON *options) {
    int n = cJSON_GetArraySize(options), builds = 0;
    for (int i = 0; i < n; i++) {
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(options, i), "type");
        builds += cJSON_IsString(type) && strcmp(type->valuestring, "build") == 0;
    }
    int pick = (int)arena_rng_below(&rng, (uint64_t)(builds ? builds : n));
    for (int i = 0; i < n; i++) {
        const cJSON *option = cJSON_GetArrayItem(options, i);
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(option, "type");
        int is_build = cJSON_IsString(type) && strcmp(type->valuestring, "build") == 0;
        if ((!builds || is_build) && pick-- == 0) return cJSON_Duplicate(option, 1);
    }
    return cJSON_Duplicate(cJSON_GetArrayItem(options, 0), 1);
}

/* ---- machiavelli-rummy ---- */

/* Rank 1..13 and suit of a natural card code; 0 for the joker or a bad code. */
static int parse_card(const char *code, char *suit) {
    size_t len = strlen(code);
    if (len < 2 || len > 3 || strcmp(code, "JK") == 0) return 0;
    for (int r = 0; r < 13; r++)
        if (strlen(RANKS[r]) == len - 1 && strncmp(code, RANKS[r], len - 1) == 0) {
            *suit = code[len - 1];
            return r + 1;
        }
    return 0;
}

static void card_code(int rank, char suit, char out[4]) {
    snprintf(out, 4, "%s%c", RANKS[(rank - 1) % 13], suit);
}

/* have[suit][rank]: the hand's natural cards (rank 14 = the ace again, above the king). */
static void count_hand(const cJSON *hand, int have[4][15]) {
    memset(have, 0, sizeof(int) * 4 * 15);
    const cJSON *card;
    cJSON_ArrayForEach(card, hand) {
        char suit;
        int rank = cJSON_IsString(card) ? parse_card(card->valuestring, &suit) : 0;
        if (!rank) continue;
        int s = (int)(strchr(SUITS, suit) - SUITS);
        have[s][rank]++;
        if (rank == 1) have[s][14]++;
    }
}

int rummy_meld_from_hand(const cJSON *hand, char out[3][4]) {
    int have[4][15];
    count_hand(hand, have);
    for (int rank = 1; rank <= 13; rank++) { /* a group: one rank, three suits */
        int k = 0;
        for (int s = 0; s < 4 && k < 3; s++)
            if (have[s][rank]) card_code(rank, SUITS[s], out[k++]);
        if (k == 3) return 1;
    }
    for (int s = 0; s < 4; s++) /* a run of three */
        for (int low = 1; low <= 12; low++)
            if (have[s][low] && have[s][low + 1] && have[s][low + 2]) {
                for (int i = 0; i < 3; i++) card_code(low + i, SUITS[s], out[i]);
                return 1;
            }
    return 0;
}

int rummy_extensions(const cJSON *meld, char out[4][4]) {
    int n = cJSON_GetArraySize(meld), ranks[108], lo = 99, hi = 0, ace = 0, king = 0;
    char suits[108];
    if (n < 1 || n > 108) return 0;
    for (int i = 0; i < n; i++) {
        const cJSON *card = cJSON_GetArrayItem(meld, i);
        ranks[i] = cJSON_IsString(card) ? parse_card(card->valuestring, &suits[i]) : 0;
        if (!ranks[i]) return 0; /* a joker: where it stands is ambiguous, leave it */
        ace |= ranks[i] == 1;
        king |= ranks[i] == 13;
    }
    int group = 1;
    for (int i = 1; i < n; i++) group &= ranks[i] == ranks[0];
    int k = 0;
    if (group) {
        if (n >= 4) return 0;
        for (int s = 0; s < 4; s++)
            if (!memchr(suits, SUITS[s], (size_t)n)) card_code(ranks[0], SUITS[s], out[k++]);
        return k;
    }
    if (n >= 13) return 0; /* a run holds at most 13 cards (the ace is low or high) */
    for (int i = 0; i < n; i++) {
        int r = (ace && king && ranks[i] == 1) ? 14 : ranks[i];
        lo = r < lo ? r : lo;
        hi = r > hi ? r : hi;
    }
    if (lo > 1) card_code(lo - 1, suits[0], out[k++]);
    if (hi < 13 || (hi == 13 && lo > 1)) card_code(hi + 1, suits[0], out[k++]);
    return k;
}

static int hand_has(const cJSON *hand, const char *code) {
    const cJSON *card;
    cJSON_ArrayForEach(card, hand)
        if (cJSON_IsString(card) && strcmp(card->valuestring, code) == 0) return 1;
    return 0;
}

static cJSON *play(cJSON *table) {
    cJSON *action = cJSON_CreateObject();
    cJSON_AddStringToObject(action, "type", "play");
    cJSON_AddItemToObject(action, "table", table);
    return action;
}

/* Lay a meld from hand, else extend a joker-free meld on the table, else draw. */
static cJSON *rummy(const cJSON *request, const cJSON *game) {
    const cJSON *obs = cJSON_GetObjectItemCaseSensitive(request, "observation");
    const cJSON *hand = cJSON_GetObjectItemCaseSensitive(obs, "hand");
    const cJSON *table = cJSON_GetObjectItemCaseSensitive(obs, "table");
    char cards[4][4];
    if (rummy_meld_from_hand(hand, cards)) {
        cJSON *next = cJSON_Duplicate(table, 1);
        const char *meld[3] = {cards[0], cards[1], cards[2]};
        cJSON_AddItemToArray(next, cJSON_CreateStringArray(meld, 3));
        return play(next);
    }
    const cJSON *rules = cJSON_GetObjectItemCaseSensitive(game, "rules");
    const cJSON *opening = cJSON_GetObjectItemCaseSensitive(rules, "opening");
    const cJSON *opened = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(obs, "opened"),
        (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(obs, "seat")));
    int must_open = cJSON_IsString(opening) && strcmp(opening->valuestring, "meld-from-hand") == 0
                    && !cJSON_IsTrue(opened);
    for (int i = 0; !must_open && i < cJSON_GetArraySize(table); i++) {
        int k = rummy_extensions(cJSON_GetArrayItem(table, i), cards);
        for (int j = 0; j < k; j++)
            if (hand_has(hand, cards[j])) {
                cJSON *next = cJSON_Duplicate(table, 1);
                cJSON_AddItemToArray(cJSON_GetArrayItem(next, i), cJSON_CreateString(cards[j]));
                return play(next);
            }
    }
    cJSON *draw = cJSON_CreateObject();
    cJSON_AddStringToObject(draw, "type", "draw");
    return draw;
}

cJSON *strategy_act(const cJSON *request, const cJSON *game) {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(game, "game");
    if (cJSON_IsString(name) && strncmp(name->valuestring, "machiavelli-rummy@", 18) == 0)
        return rummy(request, game);
    const cJSON *options = cJSON_GetObjectItemCaseSensitive(request, "options");
    if (cJSON_GetArraySize(options) > 0) return machiavelli(options);
    fprintf(stderr, "no strategy for this decision\n");
    return cJSON_CreateNull();
}
