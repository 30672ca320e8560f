import networkx as nx

G = nx.Graph([(1, 2), (2, 3), (4, 5)])
print(nx.has_path(G, 1, 3), nx.has_path(G, 1, 5))
print(nx.shortest_path(G, 1, 3))
path = nx.shortest_path(G, 1, 5)
print(path)
