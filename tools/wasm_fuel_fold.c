/* The call graph for tools/wasm_fuel: which functions are folded, i.e. have
 * no charge of their own because whoever calls them pays for them.
 *
 * A candidate is a function without loops that the host never calls
 * (not exported, not the start function). Direct callers pay its cost at
 * their own charge point; if it is in a table, every call_indirect of its
 * signature pays the most any folded function of that signature costs.
 * The graph has a node per defined function and one per signature (a
 * call_indirect calls its signature's node, which calls every candidate in
 * a table with that signature). A cycle among folded functions would let
 * code run forever without passing a charge point, so:
 *   1. among candidates not in a table, every strongly connected component
 *      with a cycle keeps its charges (what is left is acyclic);
 *   2. adding the candidates in a table and the signature nodes, those of
 *      them in a component with a cycle keep their charges (any cycle left
 *      would pass a signature node, hence one of them: none is left);
 *   3. costs are computed callees first. A candidate whose cost exceeds
 *      WF_FOLD_MAX (WF_FOLD_INDIRECT_MAX if in a table, as every
 *      call_indirect of its signature pays it) keeps its charge too. */
#include <stdlib.h>
#include <string.h>

#include "wasm_fuel.h"

typedef struct {
  wf_module *m;
  uint32_t nodes;          /* functions, then signatures */
  bool *candidate;         /* per function */
  bool sigs;               /* signature nodes are in the graph */
  uint32_t *sig_start;     /* per signature: its members in sig_members */
  uint32_t *sig_members;
} graph;

/* Edges of node v: a function's calls, or a signature's candidates. */
static const uint32_t *edges(const graph *g, uint32_t v, uint32_t *n) {
  if (v < g->m->declared) {
    *n = g->m->funcs[v].ncallees;
    return g->m->funcs[v].callees;
  }
  uint32_t s = v - g->m->declared;
  *n = g->sig_start[s + 1] - g->sig_start[s];
  return g->sig_members + g->sig_start[s];
}

static bool in_graph(const graph *g, uint32_t v) { return v >= g->m->declared ? g->sigs : g->candidate[v]; }

static void *zalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p) wf_fail(NULL, "out of memory");
  return p;
}

/* Signature nodes' members: candidates in a table, by signature. */
static void index_signatures(graph *g) {
  wf_module *m = g->m;
  g->sig_start = zalloc((size_t)m->nsigs + 1, sizeof *g->sig_start);
  g->sig_members = zalloc(m->declared, sizeof *g->sig_members);
  for (uint32_t i = 0; i < m->declared; i++)
    if (g->candidate[i] && m->funcs[i].referenced) g->sig_start[m->type_sig[m->funcs[i].type] + 1]++;
  for (uint32_t s = 0; s < m->nsigs; s++) g->sig_start[s + 1] += g->sig_start[s];
  uint32_t *fill = zalloc(m->nsigs, sizeof *fill);
  for (uint32_t i = 0; i < m->declared; i++) {
    if (!g->candidate[i] || !m->funcs[i].referenced) continue;
    uint32_t s = m->type_sig[m->funcs[i].type];
    g->sig_members[g->sig_start[s] + fill[s]++] = i;
  }
  free(fill);
}

/* Tarjan's algorithm, iterative (call chains can be deep): functions on a
 * cycle (only those in a table, when `referenced`) stop being candidates. */
static void break_cycles(graph *g, bool referenced) {
  uint32_t *index = zalloc(g->nodes, sizeof *index), *low = zalloc(g->nodes, sizeof *low);
  uint32_t *cursor = zalloc(g->nodes, sizeof *cursor), *work = zalloc(g->nodes, sizeof *work);
  uint32_t *stack = zalloc(g->nodes, sizeof *stack);
  bool *on_stack = zalloc(g->nodes, sizeof *on_stack);
  uint32_t counter = 0, sp = 0;
  for (uint32_t root = 0; root < g->nodes; root++) {
    if (!in_graph(g, root) || index[root]) continue;
    uint32_t wp = 0;
    work[wp++] = root;
    index[root] = low[root] = ++counter;
    stack[sp++] = root;
    on_stack[root] = true;
    while (wp) {
      uint32_t v = work[wp - 1], n;
      const uint32_t *e = edges(g, v, &n);
      if (cursor[v] < n) {
        uint32_t u = e[cursor[v]++];
        if (!in_graph(g, u)) continue;
        if (!index[u]) {
          index[u] = low[u] = ++counter;
          stack[sp++] = u;
          on_stack[u] = true;
          work[wp++] = u;
        } else if (on_stack[u] && index[u] < low[v]) {
          low[v] = index[u];
        }
        continue;
      }
      wp--;
      if (wp && low[v] < low[work[wp - 1]]) low[work[wp - 1]] = low[v];
      if (low[v] != index[v]) continue;
      /* v roots a component: pop it; cyclic if larger than one or self-calling */
      uint32_t first = sp;
      do first--; while (stack[first] != v);
      bool cyclic = sp - first > 1;
      for (uint32_t k = 0; k < n && !cyclic; k++) cyclic = e[k] == v;
      for (uint32_t k = first; k < sp; k++) {
        on_stack[stack[k]] = false;
        if (cyclic && stack[k] < g->m->declared && (!referenced || g->m->funcs[stack[k]].referenced))
          g->candidate[stack[k]] = false;
      }
      sp = first;
    }
  }
  free(index);
  free(low);
  free(cursor);
  free(work);
  free(stack);
  free(on_stack);
}

/* Costs, callees first (the graph of candidates is now acyclic): a
 * depth-first walk that finishes a node after all the nodes it calls. */
static void fold(graph *g, wf_body *b) {
  wf_module *m = g->m;
  uint32_t *cursor = zalloc(g->nodes, sizeof *cursor), *work = zalloc(g->nodes, sizeof *work);
  bool *seen = zalloc(g->nodes, sizeof *seen);
  for (uint32_t root = 0; root < g->nodes; root++) {
    if (!in_graph(g, root) || seen[root]) continue;
    uint32_t wp = 0;
    work[wp++] = root;
    seen[root] = true;
    while (wp) {
      uint32_t v = work[wp - 1], n;
      const uint32_t *e = edges(g, v, &n);
      if (cursor[v] < n) {
        uint32_t u = e[cursor[v]++];
        if (in_graph(g, u) && !seen[u]) {
          seen[u] = true;
          work[wp++] = u;
        }
        continue;
      }
      wp--;
      if (v >= m->declared) { /* a signature: the most its folded members cost */
        uint64_t most = 0;
        for (uint32_t k = 0; k < n; k++)
          if (m->funcs[e[k]].folded && m->funcs[e[k]].fold_cost > most) most = m->funcs[e[k]].fold_cost;
        m->sig_cost[v - m->declared] = most;
        continue;
      }
      wf_func *f = &m->funcs[v];
      wf_decode_body(m, f, b, false);
      wf_place_charges(m, b);
      f->fold_cost = (uint64_t)b->entry;
      f->folded = f->fold_cost <= (f->referenced ? WF_FOLD_INDIRECT_MAX : WF_FOLD_MAX);
      f->pure = f->folded && !f->calls_out && !f->eh && !b->bulk; /* bulk operations charge */
      for (uint32_t k = 0; k < n && f->pure; k++) f->pure = e[k] < m->declared && m->funcs[e[k]].pure;
    }
  }
  free(cursor);
  free(work);
  free(seen);
}

void wf_code_analyse(wf_module *m, const uint8_t *code, size_t size) {
  wf_reader r = {code, code + size, "code section"};
  m->bodies = wf_u32(&r);
  if (m->bodies != m->declared) return; /* the caller reports it */
  wf_body b = {0};
  for (uint32_t i = 0; i < m->bodies; i++) {
    wf_func *f = &m->funcs[i];
    f->size = wf_u32(&r);
    f->body = r.p;
    wf_skip(&r, f->size);
    wf_decode_body(m, f, &b, true);
  }
  if (r.p != r.end) wf_fail(r.p, "code section has trailing bytes");

  graph g = {.m = m, .nodes = m->declared + m->nsigs};
  g.candidate = zalloc(m->declared, sizeof *g.candidate);
  for (uint32_t i = 0; i < m->declared; i++) {
    const wf_func *f = &m->funcs[i];
    g.candidate[i] = !f->entered && !f->has_loop && !f->referenced;
  }
  index_signatures(&g);
  break_cycles(&g, false);
  for (uint32_t i = 0; i < m->declared; i++) {
    const wf_func *f = &m->funcs[i];
    if (f->referenced) g.candidate[i] = !f->entered && !f->has_loop && !m->tables_shared;
  }
  free(g.sig_start);
  free(g.sig_members);
  index_signatures(&g);
  g.sigs = true;
  break_cycles(&g, true);
  /* members found on a cycle left the candidates: index again without them */
  free(g.sig_start);
  free(g.sig_members);
  index_signatures(&g);
  fold(&g, &b);
  free(g.candidate);
  free(g.sig_start);
  free(g.sig_members);
  wf_body_free(&b);
}
