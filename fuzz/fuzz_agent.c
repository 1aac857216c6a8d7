/* fuzz_agent: both grammars (Manticore, Sphinx 2.2.11) — the agent-line grammar. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hk_agent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = '\0';
    hk_agent_line a;
    hk_err e;
    hk_warns w = {0};
    hk_pos pos = {"fuzz", 1, 1};
    if (hk_agent_parse(s, "dist", pos, &a, &e, &w) == 0)
        hk_agent_line_free(&a);
    if (hk_agent_parse_sphinx2(s, pos, &a, &e, &w) == 0) /* Sphinx 2.2.11's state machine */
        hk_agent_line_free(&a);
    free(s);
    return 0;
}
