import networkx as nx

deps = nx.DiGraph([
    ("algebra", "calculus"), ("calculus", "ode"), ("linear_algebra", "ode"),
    ("algebra", "linear_algebra"), ("ode", "pde"), ("calculus", "pde"),
])
print(list(nx.lexicographical_topological_sort(deps)))
print(nx.is_directed_acyclic_graph(deps))
print(nx.dag_longest_path(deps))
print(sorted(nx.ancestors(deps, "pde")))
deps.add_edge("pde", "algebra")
print(nx.is_directed_acyclic_graph(deps))
list(nx.topological_sort(deps))
