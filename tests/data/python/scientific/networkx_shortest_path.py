import networkx as nx

G = nx.Graph()
G.add_weighted_edges_from([
    ("A", "B", 4), ("A", "C", 2), ("B", "C", 5), ("B", "D", 10),
    ("C", "E", 3), ("E", "D", 4), ("D", "F", 11),
])
print(nx.shortest_path(G, "A", "F", weight="weight"))
print(nx.shortest_path_length(G, "A", "F", weight="weight"))
print(nx.shortest_path(G, "A", "F"))
lengths = nx.single_source_dijkstra_path_length(G, "A")
print(sorted(lengths.items()))
print(nx.diameter(G), round(nx.average_shortest_path_length(G), 10))
