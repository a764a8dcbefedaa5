package dev.backstage.operator.scaling.sim;

import dev.backstage.operator.scaling.ScalingPolicy;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Benchmark, not a test: replays arrival traces through our decision function and through a simulation of
 * KEDA + the HPA with their defaults, and prints one table per trace. Deterministic (exponential job times come
 * from a generator seeded per phase, the same jobs for every autoscaler); each
 * setup runs at {@value #PHASES} loop phases (the controllers' poll/sync clocks shifted against the trace,
 * so no one wins by a lucky alignment) and the table shows the averages.
 *
 * <p>Environment for experiments (not for the published figures): {@code SIM_LOOKAHEAD} / {@code SIM_DOWN_INTERVAL}
 * (seconds) override our policy's {@code scaleUpLookahead} / {@code scaleDownInterval} in the equal-grace
 * scenarios; {@code SIM_DEBUG=1} prints our decision's reason at every change (use with {@code --timeline}).
 *
 * <p>Run from the repository root:
 * <pre>
 * mvn -q -B -o -pl operator -am test-compile &amp;&amp; java -cp operator/target/classes:operator/target/test-classes:worker-runtime/target/classes dev.backstage.operator.scaling.sim.AutoscalingSimulation
 * </pre>
 */
public final class AutoscalingSimulation {
    static final int PHASES = 10;
    static final long OUR_POLL_MS = 5_000;
    /** RabbitMQ's management statistics refresh (collect_statistics_interval, 5 s by default). */
    static final long RABBITMQ_STATS_REFRESH_MS = 5_000;

    static final double STARTUP_SECONDS = 10;
    /** Kubernetes' default terminationGracePeriodSeconds: what a Deployment scaled by KEDA gets unless set. */
    static final double KUBERNETES_DEFAULT_GRACE = 30;

    static final double TAIL_SECONDS = 900;

    private final SimulationRunner runner;
    private final PrintStream out;

    AutoscalingSimulation(PrintStream out, SimulationRunner runner) {
        this.out = out;
        this.runner = runner;
    }

    /**
     * No arguments: all tables. {@code --timeline TRACE LABEL PHASE}: one run's state every 10 s instead
     * (e.g. {@code --timeline steady "keda+hpa (defaults)" 0}), to see why a figure is what it is.
     * {@code --only TRACE[,TRACE]}: those traces' tables only.
     */
    public static void main(String[] args) {
        if (args.length == 4 && args[0].equals("--timeline")) {
            Scenario scenario = scenarios().stream()
                    .filter(sc -> sc.trace().name().equals(args[1]))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no trace " + args[1]));
            Contestant contestant = scenario.contestants().stream()
                    .filter(c -> c.label().equals(args[2]))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no autoscaler " + args[2]));
            RunResult result = new SimulationRunner(System.out).run(scenario, contestant, Integer.parseInt(args[3]));
            System.out.println(result);
            return;
        }
        List<Scenario> chosen = scenarios();
        if (args.length == 2 && args[0].equals("--only")) {
            List<String> names = List.of(args[1].split(","));
            chosen = chosen.stream()
                    .filter(sc -> names.contains(sc.trace().name()))
                    .toList();
        }
        new AutoscalingSimulation(System.out, new SimulationRunner(null)).runAll(chosen);
    }

    static List<Scenario> scenarios() {
        List<Scenario> scenarios = new ArrayList<>(equalGraceScenarios());
        scenarios.addAll(fixedJobScenarios());
        return scenarios;
    }

    /** Grace period both sides get in {@link #equalGraceScenarios()}: Kubernetes' default. */
    static final double EQUAL_GRACE = KUBERNETES_DEFAULT_GRACE;
    /** KEDA targets swept in {@link #equalGraceScenarios()} besides the shared one (10). */
    static final long[] KEDA_TARGET_SWEEP = {5, 20, 40};

    /**
     * Exponential job times (mean 1 s, 4 slots: 4 jobs/s per replica), max 60 replicas, 30 s grace on both sides,
     * the same target of 10 outstanding jobs per replica, and KEDA swept over other targets: a step from idle,
     * a step on a base load, square-wave bursts whose idle gaps equal our scale-down window, and a large
     * diurnal wave.
     */
    static List<Scenario> equalGraceScenarios() {
        Workload exponential = Workload.exponential(4, 1, STARTUP_SECONDS);
        String notes = "both: max 60, target 10 outstanding/replica, grace 30 s; ours: concurrency 4; KEDA: "
                + KedaMetric.READY_PLUS_UNACKED.description + ", swept over targets 5/20/40 too";
        List<Scenario> scenarios = new ArrayList<>();
        for (ArrivalTrace trace : List.of(
                ArrivalTrace.stepBurst("cold-step", 0, 100, 0, 600, 600),
                ArrivalTrace.stepBurst("exp-step", 10, 100, 300, 300, 1200),
                ArrivalTrace.squareWave(100, 60, 60, 10),
                ArrivalTrace.diurnal("diurnal-150", 2, 150, 1800, 2))) {
            ScalingPolicy.Builder builder = ScalingPolicy.builder()
                    .minReplicas(0)
                    .maxReplicas(60)
                    .pollInterval(Duration.ofMillis(OUR_POLL_MS))
                    .targetBacklogPerReplica(10)
                    .concurrencyPerReplica(4);
            if (System.getenv("SIM_LOOKAHEAD") != null) {
                builder.scaleUpLookahead(Duration.ofSeconds(Long.parseLong(System.getenv("SIM_LOOKAHEAD"))));
            }
            if (System.getenv("SIM_DOWN_INTERVAL") != null) {
                builder.scaleDownInterval(Duration.ofSeconds(Long.parseLong(System.getenv("SIM_DOWN_INTERVAL"))));
            }
            ScalingPolicy policy = builder.build();
            List<Contestant> contestants = new ArrayList<>();
            contestants.add(ours("backstage", EQUAL_GRACE, policy));
            contestants.add(ours(
                    "backstage, drain 30 s",
                    EQUAL_GRACE,
                    builder.targetDrain(Duration.ofSeconds(30)).build()));
            KedaSettings keda = KedaSettings.defaults(10, 60, KedaMetric.READY_PLUS_UNACKED, 0);
            contestants.add(keda("keda+hpa (defaults, target 10)", Contestant.Role.BASELINE, EQUAL_GRACE, keda));
            for (long target : KEDA_TARGET_SWEEP) {
                contestants.add(keda(
                        "keda+hpa, target " + target,
                        Contestant.Role.KEDA_SWEEP,
                        EQUAL_GRACE,
                        KedaSettings.defaults(target, 60, KedaMetric.READY_PLUS_UNACKED, 0)));
            }
            scenarios.add(new Scenario(trace, exponential, 60, TAIL_SECONDS, notes, contestants));
        }
        return scenarios;
    }

    /** The first benchmark's scenarios: fixed job times, our grace 60 s against KEDA's 30 s. */
    static List<Scenario> fixedJobScenarios() {
        Workload shortJobs = new Workload(4, 2, 0, STARTUP_SECONDS);
        Workload kafka = new Workload(4, 2, 12, STARTUP_SECONDS);
        Workload longJobs = new Workload(1, 120, 0, STARTUP_SECONDS);
        String sharedQueueNotes = "both: max 40, target 10 outstanding/replica; ours: concurrency 4, grace 60 s;"
                + " KEDA: " + KedaMetric.READY_PLUS_UNACKED.description + ", grace 30 s (k8s default)";
        List<Scenario> scenarios = new ArrayList<>();
        for (ArrivalTrace trace : List.of(
                ArrivalTrace.steady(20, 1200),
                ArrivalTrace.stepBurst(4, 40, 300, 300, 1200),
                ArrivalTrace.sawtooth(30, 240, 60, 4),
                ArrivalTrace.diurnal(2, 38, 1800, 2))) {
            scenarios.add(new Scenario(
                    trace,
                    shortJobs,
                    40,
                    TAIL_SECONDS,
                    sharedQueueNotes,
                    standardContestants(
                            10,
                            4,
                            40,
                            null,
                            60,
                            Duration.ofSeconds(30),
                            ScalingPolicy.DEFAULT_RATE_WINDOW,
                            KedaMetric.READY_PLUS_UNACKED,
                            0)));
        }
        scenarios.add(new Scenario(
                ArrivalTrace.ramp("kafka-ramp", 2, 23, 600, 600),
                kafka,
                40,
                TAIL_SECONDS,
                "both: max 40, lagThreshold / target 10; ours: partitionCap 12, concurrency 4, grace 60 s; KEDA: "
                        + KedaMetric.KAFKA_LAG_CAPPED.description + ", grace 30 s",
                standardContestants(
                        10,
                        4,
                        40,
                        12,
                        60,
                        Duration.ofSeconds(30),
                        ScalingPolicy.DEFAULT_RATE_WINDOW,
                        KedaMetric.KAFKA_LAG_CAPPED,
                        12)));
        List<Contestant> longJobContestants = new ArrayList<>(standardContestants(
                1,
                1,
                40,
                null,
                150,
                Duration.ofSeconds(600),
                Duration.ofSeconds(300),
                KedaMetric.READY_PLUS_UNACKED,
                0));
        KedaSettings readyOnly = KedaSettings.defaults(1, 40, KedaMetric.READY_ONLY, 0);
        longJobContestants.add(
                keda("keda+hpa, ready-only metric", Contestant.Role.VARIANT, KUBERNETES_DEFAULT_GRACE, readyOnly));
        longJobContestants.add(keda(
                "keda+hpa, grace 150 s like ours",
                Contestant.Role.VARIANT,
                150,
                KedaSettings.defaults(1, 40, KedaMetric.READY_PLUS_UNACKED, 0)));
        longJobContestants.add(new Contestant(
                "backstage, grace 30 s like KEDA",
                Contestant.Role.VARIANT,
                KUBERNETES_DEFAULT_GRACE,
                longJobContestants.get(0).factory()));
        scenarios.add(new Scenario(
                ArrivalTrace.constant(
                        "long-jobs",
                        0.1,
                        1800,
                        "0.1 jobs/s of 2-minute jobs for 30 min (video transcodes): workers stay busy while the ready "
                                + "queue is often empty"),
                longJobs,
                40,
                TAIL_SECONDS,
                "both: max 40, target 1 outstanding/replica; ours: concurrency 1, grace 150 s (shutdownGrace >= "
                        + "longest job), drain variant with a 300 s rate window; KEDA: grace 30 s unless said",
                longJobContestants));
        return scenarios;
    }

    private static List<Contestant> standardContestants(
            long target,
            int concurrency,
            int max,
            Integer partitions,
            double ourGrace,
            Duration drain,
            Duration rateWindow,
            KedaMetric metric,
            int kedaPartitions) {
        ScalingPolicy backlogOnly = ScalingPolicy.builder()
                .minReplicas(0)
                .maxReplicas(max)
                .pollInterval(Duration.ofMillis(OUR_POLL_MS))
                .targetBacklogPerReplica(target)
                .partitionCap(partitions)
                .concurrencyPerReplica(concurrency)
                .build();
        ScalingPolicy withDrain = ScalingPolicy.builder()
                .minReplicas(0)
                .maxReplicas(max)
                .pollInterval(Duration.ofMillis(OUR_POLL_MS))
                .targetBacklogPerReplica(target)
                .partitionCap(partitions)
                .concurrencyPerReplica(concurrency)
                .targetDrain(drain)
                .rateWindow(rateWindow)
                .build();
        KedaSettings keda = KedaSettings.defaults(target, max, metric, kedaPartitions);
        List<Contestant> contestants = new ArrayList<>(List.of(
                ours("backstage", ourGrace, backlogOnly),
                ours("backstage, drain " + drain.toSeconds() + " s", ourGrace, withDrain)));
        if (partitions == null) {
            // The same policy on RabbitMQ figures: the management API refreshes ready/unacked and the publish
            // counter every 5 s, so each sample is up to 5 s old (KEDA's rows keep live figures: stricter for us).
            contestants.add(new Contestant(
                    "backstage, stats 5 s old (rmq)",
                    Contestant.Role.VARIANT,
                    ourGrace,
                    phase -> new BackstageAutoscaler(
                            backlogOnly,
                            OUR_POLL_MS,
                            (phase * 3_000L) % OUR_POLL_MS,
                            RABBITMQ_STATS_REFRESH_MS,
                            (phase * 1_700L) % RABBITMQ_STATS_REFRESH_MS)));
        }
        contestants.addAll(List.of(
                keda("keda+hpa (defaults)", Contestant.Role.BASELINE, KUBERNETES_DEFAULT_GRACE, keda),
                keda(
                        "keda+hpa, useCachedMetrics",
                        Contestant.Role.VARIANT,
                        KUBERNETES_DEFAULT_GRACE,
                        keda.withCachedMetrics())));
        return contestants;
    }

    private static Contestant ours(String label, double grace, ScalingPolicy policy) {
        return new Contestant(
                label,
                Contestant.Role.OURS,
                grace,
                phase -> new BackstageAutoscaler(policy, OUR_POLL_MS, (phase * 3_000L) % OUR_POLL_MS));
    }

    private static Contestant keda(String label, Contestant.Role role, double grace, KedaSettings settings) {
        return new Contestant(
                label,
                role,
                grace,
                phase -> new KedaHpaAutoscaler(
                        settings, (phase * 3_000L) % settings.pollingMs(), (phase * 4_500L) % settings.hpaSyncMs()));
    }

    void runAll(List<Scenario> scenarios) {
        out.println("Autoscaling simulation: backstage decision function vs KEDA + HPA defaults");
        out.println("our operator: polls every 5 s (one extra poll 1 s after a scale-up that activates the pool or"
                + " answers an arrival step), sizes for the arrivals expected 15 s ahead (podStartup 10 s + one poll),"
                + " a step for its new level, a rising line 120 s further ahead (at most +25 %), holds on a burst's"
                + " first poll (and while arrivals that resumed after a quiet spell show no trend yet), makes no"
                + " down-move while the arrival line rises toward the count, moves down by >= 20 % at most every"
                + " 60 s; writes replicas at once;");
        out.println("KEDA: pollingInterval 30 s, cooldown 300 s; HPA: sync 15 s, tolerance 10 %, scale-down window"
                + " 300 s, up max(+4, +100 %)/15 s");
        out.println("each row: mean over " + PHASES + " runs with the controllers' loop phases shifted; "
                + "an idle tail of " + (int) TAIL_SECONDS + " s follows each trace");
        out.println("reach: from a rise of the needed replicas (ceil(arrival rate / replica rate)) until that many"
                + " are ready (10 s start-up included), /bound: over pod start-up + one poll, what physics allows"
                + " (below 1: the replicas were already there); asked: until the Deployment asks for them;");
        out.println("deficit: replica-s short of the need; replica-s: every pod from creation to exit; p99 wait:"
                + " arrival to start; killed: in-flight jobs killed at the end of a termination grace period");
        for (Scenario scenario : scenarios) {
            runScenario(scenario);
        }
    }

    private void runScenario(Scenario scenario) {
        double lowerBound = scenario.workload().startupSeconds() + OUR_POLL_MS / 1000.0;
        out.println();
        out.println("== " + scenario.trace().name() + ": " + scenario.trace().description());
        out.println("   " + scenario.workload().describe());
        out.println("   " + scenario.notes());
        out.printf(
                Locale.ROOT,
                "   lower bound on time to needed replicas ready: pod start-up + one poll = %.0f s; target:"
                        + " ready within 1.5x the causal bound, job time + start-up + one poll = %.1f s%n",
                lowerBound,
                scenario.causalBoundSeconds(OUR_POLL_MS));
        out.printf(
                Locale.ROOT,
                "   %-32s %10s %10s %7s %10s %9s %9s %10s %9s %9s %7s%n",
                "autoscaler",
                "reach mean",
                "reach max",
                "/bound",
                "asked mean",
                "max queue",
                "deficit",
                "replica-s",
                "p99 wait",
                "scalings",
                "killed");
        List<Summary> summaries = new ArrayList<>();
        for (Contestant contestant : scenario.contestants()) {
            List<RunResult> runs = new ArrayList<>();
            for (int phase = 0; phase < PHASES; phase++) {
                runs.add(runner.run(scenario, contestant, phase));
            }
            Summary summary = Summary.of(contestant, runs);
            summaries.add(summary);
            out.printf(
                    Locale.ROOT,
                    "   %-32s %8.1f s %8.1f s %6.2fx %8.1f s %9.0f %9.0f %10.0f %7.1f s %9.1f %7.1f%s%n",
                    contestant.label(),
                    summary.reachMean(),
                    summary.reachMax(),
                    summary.reachMean() / lowerBound,
                    summary.askMean(),
                    summary.maxOutstanding(),
                    summary.deficitReplicaSeconds(),
                    summary.replicaSeconds(),
                    summary.p99Wait(),
                    summary.scaleEvents(),
                    summary.killed(),
                    summary.unreached() > 0
                            ? String.format(
                                    Locale.ROOT,
                                    "   (%d of %d rises never reached)",
                                    summary.unreached(),
                                    summary.rises())
                            : "");
        }
        if (scenario.workload().partitioned()) {
            for (Summary summary : summaries) {
                out.printf(
                        Locale.ROOT,
                        "   %-32s idle consumers (ready > %d partitions): %.0f replica-s; runs stuck one "
                                + "below the cap for >= %.0f s: %d of %d%n",
                        summary.contestant().label(),
                        scenario.workload().partitions(),
                        summary.idleConsumerReplicaSeconds(),
                        Summary.STALL_SECONDS,
                        summary.stalledRuns(),
                        PHASES);
            }
        }
        Summary baseline = summaries.stream()
                .filter(s -> s.contestant().role() == Contestant.Role.BASELINE)
                .findFirst()
                .orElseThrow();
        double jobSeconds = scenario.workload().serviceSeconds();
        if (jobSeconds > lowerBound) {
            // Jobs longer than the bound: the need (arrival rate x job time / slots) cannot be known before jobs
            // finish, nor read from a backlog of one job per replica before that many jobs have piled up, one job
            // time after a step. No causal autoscaler beats job time + start-up + one poll without being told.
            double causal = scenario.causalBoundSeconds(OUR_POLL_MS);
            out.printf(
                    Locale.ROOT,
                    "   jobs (%.0f s) outlast the bound: the need shows only after one job time, so the"
                            + " causal bound is job time + start-up + one poll = %.0f s; %s %.1f s (%.2fx), %s %.1f s (%.2fx)%n",
                    jobSeconds,
                    causal,
                    summaries.get(0).contestant().label(),
                    summaries.get(0).reachMean(),
                    summaries.get(0).reachMean() / causal,
                    baseline.contestant().label(),
                    baseline.reachMean(),
                    baseline.reachMean() / causal);
            // Why 1.5x the start-up bound is out of reach for any causal autoscaler: pods for the first rise must be
            // asked for by 1.5 x bound - start-up; show what had been observed by then.
            double askBy = 1.5 * lowerBound - scenario.workload().startupSeconds();
            int needed = scenario.neededAt(0);
            double arrived = arrivalsBy(scenario.trace(), askBy);
            out.printf(
                    Locale.ROOT,
                    "   to have the %d needed replicas ready within 1.5x the bound (%.1f s) they must be asked for"
                            + " by %.1f s, when %.0f job(s) had arrived and none had finished; %.1f-s jobs would look the"
                            + " same and need %d: asking for %d then is a guess, not a measurement%n",
                    needed,
                    1.5 * lowerBound,
                    askBy,
                    Math.floor(arrived),
                    askBy,
                    (int) Math.ceil(scenario.trace().rateAt(0)
                                    * askBy
                                    / scenario.workload().slotsPerReplica()
                            - 1e-9),
                    needed);
        }
        for (Summary ours : summaries) {
            if (ours.contestant().role() != Contestant.Role.OURS) {
                continue;
            }
            // The target: the needed replicas ready within 1.5x the causal bound (job time + start-up + one poll).
            double reach = ours.reachMean() / scenario.causalBoundSeconds(OUR_POLL_MS);
            double cost = ours.replicaSeconds() / baseline.replicaSeconds();
            out.printf(
                    Locale.ROOT,
                    "   targets, %s vs %s: reach %.2fx the causal bound (<= 1.5x: %s), replica-s %.2fx (<= 1x: %s),"
                            + " p99 wait %.1f vs %.1f s (%s), scalings %.1f vs %.1f (%s), killed %.1f (0: %s); ready %.1fx"
                            + " sooner%n",
                    ours.contestant().label(),
                    baseline.contestant().label(),
                    reach,
                    verdict(reach <= Scenario.TARGET_FACTOR),
                    cost,
                    verdict(cost <= 1),
                    ours.p99Wait(),
                    baseline.p99Wait(),
                    verdict(ours.p99Wait() <= baseline.p99Wait()),
                    ours.scaleEvents(),
                    baseline.scaleEvents(),
                    verdict(ours.scaleEvents() <= baseline.scaleEvents()),
                    ours.killed(),
                    verdict(ours.killed() == 0),
                    baseline.reachMean() / ours.reachMean());
            StringBuilder pareto = new StringBuilder();
            for (Summary keda : summaries) {
                if (keda.contestant().role() != Contestant.Role.BASELINE
                        && keda.contestant().role() != Contestant.Role.KEDA_SWEEP) {
                    continue;
                }
                boolean cheaper = ours.replicaSeconds() <= keda.replicaSeconds();
                boolean faster = ours.p99Wait() <= keda.p99Wait();
                pareto.append(pareto.length() == 0 ? "" : "; ")
                        .append(keda.contestant().label())
                        .append(": ")
                        .append(
                                cheaper && faster
                                        ? "better on both"
                                        : cheaper ? "cheaper, slower" : faster ? "faster, dearer" : "WORSE on both");
            }
            out.println("   pareto (replica-s, p99 wait), " + ours.contestant().label() + " vs " + pareto);
        }
    }

    /** Jobs the trace releases in its first {@code seconds} (the integral of its rate, 0.1 s steps). */
    private static double arrivalsBy(ArrivalTrace trace, double seconds) {
        double sum = 0;
        for (double t = 0; t < seconds; t += 0.1) {
            sum += trace.rateAt(t) * Math.min(0.1, seconds - t);
        }
        return sum + 1e-9;
    }

    private static String verdict(boolean met) {
        return met ? "met" : "MISSED";
    }
}
