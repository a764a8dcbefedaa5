package dev.backstage.runtime.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.QueueBacklog;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code backstage inspect}: per-queue undelivered, in flight, dead letters, oldest age. */
@Command(name = "inspect", description = "Show backlog per queue (a table, or --json).")
final class InspectCommand implements Callable<Integer> {
    @Mixin
    BrokerOptions broker;

    @Option(names = "--queue", split = ",", description = "queues (default: the provider's default queues)")
    List<String> queues;

    @Option(names = "--json", description = "machine-readable output")
    boolean json;

    @Override
    public Integer call() {
        return broker.use(provider -> {
            List<String> names = queues == null || queues.isEmpty() ? provider.jobs().defaultQueues() : queues;
            BacklogReport report = provider.backlogProbe().measure(names, broker.settings().consumerGroup());
            if (json) {
                System.out.println(new ObjectMapper().findAndRegisterModules()
                        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                        .writerWithDefaultPrettyPrinter().writeValueAsString(report));
                return 0;
            }
            System.out.printf("%-24s %12s %10s %13s %12s%n", "QUEUE", "UNDELIVERED", "IN FLIGHT", "DEAD LETTERS", "OLDEST");
            for (QueueBacklog q : report.queues()) {
                System.out.printf("%-24s %12d %10s %13d %12s%n", q.queue(), q.undelivered(),
                        q.inFlight() < 0 ? "?" : Long.toString(q.inFlight()), q.deadLetters(), age(q.oldestAgeMs()));
            }
            report.queues().stream().filter(q -> q.note() != null)
                    .forEach(q -> System.out.println("note (" + q.queue() + "): " + q.note()));
            return 0;
        });
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
