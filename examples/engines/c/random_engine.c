/* A complete Takenoko engine in C: completes an objective when it can, else plays a
 * random legal action (the arena's random:complete=true).
 *
 * The protocol is JSON lines (docs/protocol.md).  This engine reads only what it needs
 * with a few string searches, which is enough because the arena writes compact JSON and
 * actions in notation hold no quote or backslash.  Build: cc -O2 -o random_engine
 * random_engine.c
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state = 0x9e3779b97f4a7c15ULL;

/* splitmix64: a small, good generator, seeded by each new game. */
static uint64_t next_random(void) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The text of the string field KEY in LINE (copied to OUT), or 0 when absent. */
static int string_field(const char *line, const char *key, char *out, size_t size) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *at = strstr(line, pattern);
    if (!at) return 0;
    at += strlen(pattern);
    const char *end = strchr(at, '"');
    if (!end || (size_t)(end - at) >= size) return 0;
    memcpy(out, at, end - at);
    out[end - at] = 0;
    return 1;
}

static void answer(const char *text) {
    fputs(text, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

/* Choose among the strings of "legal":[...] and answer with one. */
static void decide(const char *line, int complete) {
    const char *at = strstr(line, "\"legal\":[");
    if (!at) return;
    at += strlen("\"legal\":[");
    const char *starts[512];
    size_t lengths[512];
    int n = 0, chosen = -1;
    while (*at == '"' && n < 512) {
        const char *end = strchr(at + 1, '"');
        if (!end) break;
        starts[n] = at + 1;
        lengths[n] = end - at - 1;
        if (complete && chosen < 0 && strncmp(starts[n], "complete ", 9) == 0) chosen = n;
        n++;
        at = end + 1;
        if (*at == ',') at++;
    }
    if (n == 0) return;
    if (chosen < 0) chosen = (int)(next_random() % (uint64_t)n);
    printf("{\"type\":\"action\",\"action\":\"%.*s\"}\n", (int)lengths[chosen], starts[chosen]);
    fflush(stdout);
}

int main(void) {
    char *line = NULL;
    size_t capacity = 0;
    char type[32];
    int complete = 1;
    while (getline(&line, &capacity, stdin) > 0) {
        if (!string_field(line, "type", type, sizeof type)) continue;
        if (strcmp(type, "hello") == 0) {
            answer("{\"type\":\"hello\",\"protocol\":\"takenoko-engine\",\"version\":1,"
                   "\"name\":\"random-c\",\"author\":\"takenoko-arena examples\","
                   "\"options\":[{\"name\":\"complete\",\"type\":\"check\",\"default\":true}]}");
        } else if (strcmp(type, "options") == 0) {
            complete = strstr(line, "\"complete\":false") == NULL;
        } else if (strcmp(type, "newgame") == 0) {
            const char *seed = strstr(line, "\"seed\":");
            state = seed ? strtoull(seed + 7, NULL, 10) : 0;
        } else if (strcmp(type, "decide") == 0) {
            decide(line, complete);
        } else if (strcmp(type, "quit") == 0) {
            break;
        }
        /* event, gameover, error and unknown messages need no answer */
    }
    free(line);
    return 0;
}
