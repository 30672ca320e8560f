import networkx as nx

G = nx.DiGraph()
G.add_edge("s", "a", capacity=10)
G.add_edge("s", "b", capacity=5)
G.add_edge("a", "b", capacity=15)
G.add_edge("a", "t", capacity=10)
G.add_edge("b", "t", capacity=10)
value, flow = nx.maximum_flow(G, "s", "t")
print("max flow:", value)
cut_value, (S, T) = nx.minimum_cut(G, "s", "t")
print("min cut:", cut_value, sorted(S), sorted(T))
print(sum(flow["s"].values()) == value)
