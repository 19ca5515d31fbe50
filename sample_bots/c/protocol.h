/* The protocol layer: connect, handshake, receive requests, send actions, shutdown.
 * It knows nothing about any game; the strategy decides every action.
 * Spec: protocol/PROTOCOL.md. Every message is one ZeroMQ frame of UTF-8 JSON. */
#ifndef ARENA_PROTOCOL_H
#define ARENA_PROTOCOL_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#define ARENA_PROTOCOL_VERSION 1

/* What the bot plugs in. `act` returns a new cJSON action (the layer frees it);
 * `game` is the game_start message of the current game (NULL before the first). */
typedef struct {
    cJSON *(*act)(const cJSON *request, const cJSON *game);
    void (*game_over)(const cJSON *message);  /* may be NULL */
    void (*game_start)(const cJSON *message); /* may be NULL; seed your generator here */
} arena_strategy;

/* The hello frame, as a malloc'ed NUL-terminated JSON string (free() it). */
char *arena_encode_hello(const char *token, const char *name, const char *version);

/* The action answering request `id`; `action` stays owned by the caller. */
char *arena_encode_action(long id, const cJSON *action);

/* Parse a referee frame; NULL when it is not JSON or not a referee message. */
cJSON *arena_decode(const char *data, size_t size);

/* game_start.bot_seed, the seed for this game's random choices (0 <= seed < 2^53, so
 * exact in cJSON's double). Returns 0 and sets *seed, or -1 when absent or not such an
 * integer. */
int arena_bot_seed(const cJSON *game_start, uint64_t *seed);

/* The message's "type", or "" when absent. */
const char *arena_type(const cJSON *message);

/* Find the endpoint and token: --endpoint/--token, else ARENA_ENDPOINT/ARENA_TOKEN.
 * Returns 0 on success. */
int arena_where(int argc, char **argv, const char **endpoint, const char **token);

/* Connect, say hello and play until shutdown. Returns the process exit status. */
int arena_run(int argc, char **argv, const arena_strategy *strategy,
              const char *name, const char *version);

#endif
