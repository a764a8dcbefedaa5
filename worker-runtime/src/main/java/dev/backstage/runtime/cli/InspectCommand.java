package dev.backstage.runtime.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.BrokerNames;
import dev.backstage.runtime.spi.DelayedBacklog;
import dev.backstage.runtime.spi.QueueBacklog;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code backstage inspect}: per queue undelivered, in flight, dead letters, oldest age, and the delayed jobs
 * (count and next due time) where the delays backend can count them.
 */
@Command(name = "inspect", description = "Show backlog and delayed jobs per queue (a table, or --json).")
final class InspectCommand implements Callable<Integer> {
    @Mixin
    BrokerOptions broker;

    @Option(names = "--queue", split = ",", description = "queues (default: the provider's default queues)")
    List<String> queues;

    @Option(names = "--json", description = "machine-readable output")
    boolean json;

    @Override
    public Integer call() {
        if (queues != null) {
            queues.forEach(queue -> BrokerNames.requireQueue("--queue", queue));
        }
        return broker.use(provider -> {
            List<String> names =
                    queues == null || queues.isEmpty() ? provider.jobs().defaultQueues() : queues;
            BacklogReport report =
                    provider.backlogProbe().measure(names, broker.settings().consumerGroup());
            Optional<List<DelayedBacklog>> delayed = provider.delays().flatMap(d -> d.delayed(names));
            String delaysNote = provider.delays().isEmpty()
                    ? provider.name() + " holds no delayed jobs itself (its delays come from another backend, if any)"
                    : delayed.isEmpty()
                            ? "the " + provider.delays().get().backend() + " delays backend cannot count the "
                                    + "jobs it holds"
                            : null;
            if (json) {
                ObjectMapper mapper = new ObjectMapper()
                        .findAndRegisterModules()
                        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
                ObjectNode out = mapper.valueToTree(report);
                out.set("delayed", mapper.valueToTree(delayed.orElse(List.of())));
                if (delaysNote != null) {
                    out.put("delayedNote", delaysNote);
                }
                System.out.println(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(out));
                return 0;
            }
            Map<String, DelayedBacklog> perQueue = new HashMap<>();
            delayed.orElse(List.of()).stream().filter(d -> d.queue() != null).forEach(d -> perQueue.put(d.queue(), d));
            System.out.printf(
                    "%-24s %12s %10s %13s %12s %8s %-24s%n",
                    "QUEUE", "UNDELIVERED", "IN FLIGHT", "DEAD LETTERS", "OLDEST", "DELAYED", "NEXT DUE");
            Instant now = Instant.now();
            for (QueueBacklog q : report.queues()) {
                DelayedBacklog d = perQueue.get(q.queue());
                System.out.printf(
                        "%-24s %12d %10s %13d %12s %8s %-24s%n",
                        q.queue(),
                        q.undelivered(),
                        q.inFlight() < 0 ? "?" : Long.toString(q.inFlight()),
                        q.deadLetters(),
                        age(q.oldestAgeMs()),
                        d == null ? "?" : Long.toString(d.count()),
                        d == null ? "?" : due(d.nextDueAt(), now));
            }
            report.queues().stream()
                    .filter(q -> q.note() != null)
                    .forEach(q -> System.out.println("note (" + q.queue() + "): " + q.note()));
            delayed.orElse(List.of()).stream()
                    .filter(d -> d.queue() == null)
                    .forEach(d -> System.out.println(
                            "delayed (all queues): " + d.count() + (d.note() == null ? "" : "; " + d.note())));
            if (delaysNote != null) {
                System.out.println("delayed: " + delaysNote);
            }
            return 0;
        });
    }

    /** {@code 2026-12-01T18:00:00Z (in 5m)}, or {@code -} when nothing is delayed. */
    static String due(Instant at, Instant now) {
        if (at == null) {
            return "-";
        }
        long ms = at.toEpochMilli() - now.toEpochMilli();
        return at.truncatedTo(ChronoUnit.SECONDS) + (ms <= 0 ? " (due)" : " (in " + age(ms) + ")");
    }

    static String age(Long ms) {
        if (ms == null) {
            return "-";
        }
        if (ms < 1_000) {
            return ms + "ms";
        }
        if (ms < 120_000) {
            return (ms / 1_000) + "s";
        }
        if (ms < 7_200_000) {
            return (ms / 60_000) + "m";
        }
        return (ms / 3_600_000) + "h";
    }
}
