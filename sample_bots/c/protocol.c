#include "protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

char *arena_encode_hello(const char *token, const char *name, const char *version) {
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "type", "hello");
    cJSON_AddStringToObject(m, "token", token);
    cJSON_AddStringToObject(m, "name", name);
    cJSON_AddStringToObject(m, "version", version);
    cJSON_AddNumberToObject(m, "protocol", ARENA_PROTOCOL_VERSION);
    char *text = cJSON_PrintUnformatted(m);
    cJSON_Delete(m);
    return text;
}

char *arena_encode_action(long id, const cJSON *action) {
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "type", "action");
    cJSON_AddNumberToObject(m, "id", (double)id);
    cJSON_AddItemToObject(m, "action", cJSON_Duplicate(action, 1));
    char *text = cJSON_PrintUnformatted(m);
    cJSON_Delete(m);
    return text;
}

static const char *REFEREE_TYPES[] = {"welcome", "game_start", "request", "game_over",
                                      "error", "shutdown", NULL};

const char *arena_type(const cJSON *message) {
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(message, "type");
    return cJSON_IsString(type) ? type->valuestring : "";
}

int arena_bot_seed(const cJSON *game_start, uint64_t *seed) {
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(game_start, "bot_seed");
    if (!cJSON_IsNumber(value)) return -1;
    double d = value->valuedouble;
    if (!(d >= 0 && d < 9007199254740992.0) || d != (double)(uint64_t)d) return -1;
    *seed = (uint64_t)d;
    return 0;
}

cJSON *arena_decode(const char *data, size_t size) {
    cJSON *m = cJSON_ParseWithLength(data, size);
    if (!cJSON_IsObject(m)) {
        cJSON_Delete(m);
        return NULL;
    }
    for (const char **t = REFEREE_TYPES; *t; t++)
        if (strcmp(arena_type(m), *t) == 0) return m;
    cJSON_Delete(m);
    return NULL;
}

int arena_where(int argc, char **argv, const char **endpoint, const char **token) {
    *endpoint = getenv("ARENA_ENDPOINT");
    *token = getenv("ARENA_TOKEN");
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--endpoint") == 0) *endpoint = argv[++i];
        else if (strcmp(argv[i], "--token") == 0) *token = argv[++i];
    }
    return (*endpoint && **endpoint && *token) ? 0 : -1;
}

static int send_text(void *socket, char *text) {
    int rc = zmq_send(socket, text, strlen(text), 0);
    free(text);
    return rc < 0 ? -1 : 0;
}

/* Handle one message; returns 1 to go on, 0 on shutdown, -1 on a fatal error. */
static int handle(void *socket, cJSON *message, cJSON **game, int *welcomed,
                  const arena_strategy *s) {
    const char *type = arena_type(message);
    if (strcmp(type, "welcome") == 0) {
        *welcomed = 1;
    } else if (strcmp(type, "game_start") == 0) {
        cJSON_Delete(*game);
        *game = cJSON_Duplicate(message, 1);
        if (s->game_start) s->game_start(*game);
    } else if (strcmp(type, "request") == 0) {
        long id = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(message, "id"));
        cJSON *action = s->act(message, *game);
        char *text = arena_encode_action(id, action ? action : cJSON_CreateNull());
        cJSON_Delete(action);
        if (send_text(socket, text) < 0) return -1;
    } else if (strcmp(type, "game_over") == 0) {
        if (s->game_over) s->game_over(message);
    } else if (strcmp(type, "error") == 0) { /* information, except before welcome: no seat */
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(message, "code");
        const cJSON *detail = cJSON_GetObjectItemCaseSensitive(message, "detail");
        fprintf(stderr, "arena: %s: %s\n", cJSON_IsString(code) ? code->valuestring : "?",
                cJSON_IsString(detail) ? detail->valuestring : "");
        if (!*welcomed) return -1;
    } else if (strcmp(type, "shutdown") == 0) {
        return 0;
    }
    return 1;
}

int arena_run(int argc, char **argv, const arena_strategy *strategy,
              const char *name, const char *version) {
    const char *endpoint, *token;
    if (arena_where(argc, argv, &endpoint, &token) != 0) {
        fprintf(stderr, "no endpoint/token: run me from `arena`, or pass --endpoint and --token\n");
        return 2;
    }
    void *context = zmq_ctx_new();
    void *socket = zmq_socket(context, ZMQ_DEALER);
    int linger = 1000;
    zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
    int status = 1;
    cJSON *game = NULL;
    int welcomed = 0;
    if (zmq_connect(socket, endpoint) != 0 ||
        send_text(socket, arena_encode_hello(token, name, version)) != 0) {
        fprintf(stderr, "cannot reach %s: %s\n", endpoint, zmq_strerror(zmq_errno()));
        goto done;
    }
    for (;;) {
        zmq_msg_t frame;
        zmq_msg_init(&frame);
        if (zmq_msg_recv(&frame, socket, 0) < 0) {
            zmq_msg_close(&frame);
            fprintf(stderr, "receive failed: %s\n", zmq_strerror(zmq_errno()));
            break;
        }
        cJSON *message = arena_decode(zmq_msg_data(&frame), zmq_msg_size(&frame));
        zmq_msg_close(&frame);
        if (!message) {
            fprintf(stderr, "arena: ignored a frame that is not a referee message\n");
            continue;
        }
        int go_on = handle(socket, message, &game, &welcomed, strategy);
        cJSON_Delete(message);
        if (go_on <= 0) {
            status = go_on == 0 ? 0 : 1;
            break;
        }
    }
done:
    cJSON_Delete(game);
    zmq_close(socket);
    zmq_ctx_term(context);
    return status;
}
