import networkx as nx

G = nx.Graph()
edges = [(0, 1, 7), (0, 3, 5), (1, 2, 8), (1, 3, 9), (1, 4, 7), (2, 4, 5),
         (3, 4, 15), (3, 5, 6), (4, 5, 8), (4, 6, 9), (5, 6, 11)]
G.add_weighted_edges_from(edges)
T = nx.minimum_spanning_tree(G, algorithm="kruskal")
print(sorted(tuple(sorted(e)) for e in T.edges()))
print("total weight:", T.size(weight="weight"))
P = nx.minimum_spanning_tree(G, algorithm="prim")
print("prim agrees:", T.size(weight="weight") == P.size(weight="weight"))
print(nx.is_tree(T), T.number_of_edges())
