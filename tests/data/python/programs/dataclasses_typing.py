from dataclasses import dataclass, field
from typing import List, Optional

@dataclass
class Sample:
    name: str
    values: List[float] = field(default_factory=list)
    note: Optional[str] = None

    def mean(self) -> float:
        return sum(self.values) / len(self.values)

s = Sample("run", [1.0, 2.0, 4.5])
print(s, s.mean())
s
