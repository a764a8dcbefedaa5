package dev.backstage.operator.scaling.sim;

import java.util.List;

/** A contestant's runs over all phases, averaged (reach: over every rise of every run). */
record Summary(
        Contestant contestant,
        double reachMean,
        double reachMax,
        int rises,
        int unreached,
        double askMean,
        double maxOutstanding,
        double deficitReplicaSeconds,
        double idleConsumerReplicaSeconds,
        long stalledRuns,
        double replicaSeconds,
        double p99Wait,
        double scaleEvents,
        double killed) {

    /** A run counts as stalled below the partition count when it sat there for this long. */
    static final double STALL_SECONDS = 300;

    static Summary of(Contestant contestant, List<RunResult> runs) {
        List<Double> reach =
                runs.stream().flatMap(run -> run.reachSeconds().stream()).toList();
        return new Summary(
                contestant,
                reach.stream().mapToDouble(Double::doubleValue).average().orElse(0),
                reach.stream().mapToDouble(Double::doubleValue).max().orElse(0),
                reach.size(),
                runs.stream().mapToInt(RunResult::unreached).sum(),
                runs.stream()
                        .flatMap(run -> run.askSeconds().stream())
                        .mapToDouble(Double::doubleValue)
                        .average()
                        .orElse(0),
                runs.stream().mapToLong(RunResult::maxOutstanding).average().orElse(0),
                runs.stream()
                        .mapToDouble(RunResult::deficitReplicaSeconds)
                        .average()
                        .orElse(0),
                runs.stream()
                        .mapToDouble(RunResult::idleConsumerReplicaSeconds)
                        .average()
                        .orElse(0),
                runs.stream()
                        .filter(run -> run.longestStallSeconds() >= STALL_SECONDS)
                        .count(),
                runs.stream().mapToDouble(RunResult::replicaSeconds).average().orElse(0),
                runs.stream().mapToDouble(RunResult::p99WaitSeconds).average().orElse(0),
                runs.stream().mapToInt(RunResult::scaleEvents).average().orElse(0),
                runs.stream().mapToLong(RunResult::killed).average().orElse(0));
    }
}
