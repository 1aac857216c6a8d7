#!/usr/bin/python3
"""mmc_simpy: scenarios/mmc.scn in SimPy (Debian python3-simpy, the SimPy 2 API) -- the
SimPy anchor of bench/anchors.sh. A Process per query on a Resource of 2 workers per mirror;
the mirror is picked by a linear weighted draw over weights = 1/(mean latency in the karma
window), recomputed by searchd's half-period rule, as in bench/bareloop.c. Times in us.
Prints the mean latency and each mirror's share.  usage: mmc_simpy.py SECONDS [SEED]"""
import random
import sys

from SimPy.Simulation import Process, Resource, Simulation, hold, release, request

MEANS_US = [8000.0, 6000.0, 12000.0, 4000.0]
KARMA_S = 10
RING = 15


class Mirror:
    def __init__(self, sim, mean_us):
        self.mean_us = mean_us
        self.res = Resource(capacity=2, sim=sim)
        self.ring = [[-1, 0, 0] for _ in range(RING)]  # block id, answers, total us
        self.answered = 0
        self.lat_sum = 0.0

    def record(self, now, lat):
        bid = int(now // 1e6) // KARMA_S
        b = self.ring[bid % RING]
        if b[0] != bid:
            b[0], b[1], b[2] = bid, 0, 0
        b[1] += 1
        b[2] += int(lat)
        self.answered += 1
        self.lat_sum += lat

    def timer(self, now):
        s = int(now // 1e6)
        bid = s // KARMA_S
        n = t = 0
        for k in range(bid - (1 if s % KARMA_S < KARMA_S // 2 else 0), bid + 1):
            b = self.ring[k % RING]
            if k >= 0 and b[0] == k:
                n += b[1]
                t += b[2]
        return t // n if n else 0


class Query(Process):
    def run(self, m, svc):
        born = self.sim.now()
        yield request, self, m.res
        yield hold, self, svc
        yield release, self, m.res
        m.record(self.sim.now(), self.sim.now() - born)


class Source(Process):
    def run(self, world, end_us):
        while True:
            gap = max(1, int(world.rng.expovariate(1.0 / world.gap_us)) + 1)
            yield hold, self, gap
            if self.sim.now() >= end_us:
                return
            m = world.pick(self.sim.now())
            q = Query(sim=self.sim)
            self.sim.activate(q, q.run(m, int(world.rng.expovariate(1.0 / m.mean_us))))


class World(Simulation):
    def __init__(self, seed):
        Simulation.__init__(self)
        self.initialize()
        self.rng = random.Random(seed)
        self.gap_us = 1e6 / 600.0
        self.mirrors = [Mirror(self, mu) for mu in MEANS_US]
        self.w = [25.0] * 4
        self.last_recalc_s = 0

    def pick(self, now):
        s = int(now // 1e6)
        if s - self.last_recalc_s > KARMA_S // 2:
            self.last_recalc_s = s
            t = [m.timer(now) for m in self.mirrors]
            inv = sum(1.0 / x for x in t if x > 0)
            if inv > 0:
                self.w = [100.0 * (1.0 / x) / inv if x > 0 else 0.0 for x in t]
        u = self.rng.random() * sum(self.w)
        i = 0
        while i < 3 and u >= self.w[i]:
            u -= self.w[i]
            i += 1
        return self.mirrors[i]


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 600.0
    world = World(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    end_us = secs * 1e6
    src = Source(sim=world)
    world.activate(src, src.run(world, end_us))
    world.simulate(until=end_us + 60e6)
    ms = world.mirrors
    n = sum(m.answered for m in ms)
    print("queries %d mean_ms %.4f shares %s" % (n, sum(m.lat_sum for m in ms) / n / 1000.0,
                                                  " ".join("%.4f" % (m.answered / n) for m in ms)))


if __name__ == "__main__":
    main()
