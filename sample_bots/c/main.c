/* The starter bot: the protocol layer driving the strategy. Run by the referee:
 *   arena play machiavelli --bot c=sample_bots/c/bot --bot r=builtin:random */
#include "protocol.h"
#include "strategy.h"

int main(int argc, char **argv) {
    arena_strategy strategy = {strategy_act, NULL, strategy_game_start};
    return arena_run(argc, argv, &strategy, "starter-c", "1.0.0");
}
