import networkx as nx

G = nx.karate_club_graph()
print(G.number_of_nodes(), G.number_of_edges())
deg = nx.degree_centrality(G)
top = sorted(deg, key=lambda n: (-deg[n], n))[:3]
print(top, [round(deg[n], 6) for n in top])
pr = nx.pagerank(G, alpha=0.85, tol=1e-12)
print(sorted(pr, key=lambda n: (-pr[n], n))[:3], round(sum(pr.values()), 8))
print(round(nx.average_clustering(G), 8), nx.density(G).__round__(8))
