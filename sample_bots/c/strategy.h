/* The strategy: replace strategy_act with your own. */
#ifndef ARENA_STRATEGY_H
#define ARENA_STRATEGY_H

#include <cjson/cJSON.h>

/* A new game: re-seed the strategy's generator from game_start.bot_seed. Every random
 * choice of the strategy comes from that generator, so a game replays identically. */
void strategy_game_start(const cJSON *game_start);

/* Return a new cJSON action for `request`; `game` is the current game_start (or NULL). */
cJSON *strategy_act(const cJSON *request, const cJSON *game);

/* machiavelli-rummy helpers, exposed for the tests. A card is a code such as "7H",
 * "10S", "QD" or "JK" (joker). */
int rummy_meld_from_hand(const cJSON *hand, char out[3][4]);
int rummy_extensions(const cJSON *meld, char out[4][4]);

#endif
