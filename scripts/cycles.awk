# The cycles of a directed graph, for the awk programs of make
# check-layers: succ[n] lists n's successors (" a b"). find_cycles()
# calls the caller's cycle_found(path, from, to) once per edge that
# closes a cycle, path being "to -> ... -> from -> to", and returns
# whether there was any.
function cycles_visit(m,    n, t, i, k, path) {
	cyc_state[m] = 1
	cyc_stack[++cyc_depth] = m
	n = split(succ[m], t, " ")
	for (i = 1; i <= n; i++) {
		if (cyc_state[t[i]] == 1) {
			path = ""
			for (k = cyc_depth; k >= 1 && cyc_stack[k] != t[i]; k--)
				;
			for (; k <= cyc_depth; k++)
				path = path cyc_stack[k] " -> "
			cycle_found(path t[i], m, t[i])
			cyc_any = 1
		} else if (!cyc_state[t[i]]) {
			cycles_visit(t[i])
		}
	}
	cyc_depth--
	cyc_state[m] = 2
}
function find_cycles(    m) {
	for (m in succ)
		if (!cyc_state[m])
			cycles_visit(m)
	return cyc_any
}
