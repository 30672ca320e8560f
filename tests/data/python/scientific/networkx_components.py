import networkx as nx

G = nx.Graph([(1, 2), (2, 3), (4, 5), (6, 7), (7, 8), (8, 6)])
G.add_node(9)
comps = sorted(sorted(c) for c in nx.connected_components(G))
print(comps)
print(nx.number_connected_components(G), nx.is_connected(G))
D = nx.DiGraph([(1, 2), (2, 3), (3, 1), (3, 4), (4, 5), (5, 4)])
print(sorted(sorted(c) for c in nx.strongly_connected_components(D)))
print(sorted(nx.cycle_basis(G)[0]), nx.degree_histogram(G))
