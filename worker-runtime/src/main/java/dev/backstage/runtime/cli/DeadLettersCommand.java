package dev.backstage.runtime.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.runtime.spi.BrokerNames;
import dev.backstage.runtime.spi.DeadLetterEntry;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code backstage dead-letters list|redrive --queue q}. */
@Command(
        name = "dead-letters",
        description = "List or redrive dead-lettered jobs.",
        subcommands = {DeadLettersCommand.ListCommand.class, DeadLettersCommand.RedriveCommand.class})
final class DeadLettersCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(
                spec.commandLine(),
                "dead-letters needs a subcommand: `dead-letters list --queue Q` or `dead-letters redrive --queue Q`");
    }

    @Command(name = "list", description = "Show dead-lettered jobs of a queue, oldest first.")
    static final class ListCommand implements Callable<Integer> {
        @Mixin
        BrokerOptions broker;

        @Option(names = "--queue", defaultValue = "default", description = "queue (default: ${DEFAULT-VALUE})")
        String queue;

        @Option(
                names = "--limit",
                defaultValue = "20",
                converter = PositiveIntConverter.class,
                description = "show at most this many (default: ${DEFAULT-VALUE})")
        int limit;

        @Option(names = "--json", description = "machine-readable output")
        boolean json;

        @Override
        public Integer call() {
            BrokerNames.requireQueue("--queue", queue);
            return broker.use(provider -> {
                List<DeadLetterEntry> entries = provider.deadLetters().list(queue, limit);
                if (json) {
                    System.out.println(
                            new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(entries));
                    return 0;
                }
                System.out.println(provider.deadLetters().count(queue) + " dead letters on " + queue
                        + (entries.size() < limit ? "" : " (showing " + limit + ")"));
                for (DeadLetterEntry e : entries) {
                    System.out.printf(
                            "%s  %s  deliveries=%s  error=%s%n    payload=%s%n",
                            e.id(), e.taskName(), e.deliveryCount(), e.error(), e.payloadJson());
                }
                return 0;
            });
        }
    }

    @Command(
            name = "redrive",
            description = "Move dead-lettered jobs back onto their queue (nothing lost if interrupted).")
    static final class RedriveCommand implements Callable<Integer> {
        @Mixin
        BrokerOptions broker;

        @Option(names = "--queue", defaultValue = "default", description = "queue (default: ${DEFAULT-VALUE})")
        String queue;

        @Option(
                names = "--limit",
                defaultValue = "1000000",
                converter = PositiveIntConverter.class,
                description = "move at most this many (default: ${DEFAULT-VALUE})")
        int limit;

        @Override
        public Integer call() {
            BrokerNames.requireQueue("--queue", queue);
            return broker.use(provider -> {
                long moved = provider.deadLetters().redrive(queue, limit);
                System.out.println("redrove " + moved + " jobs onto " + queue);
                return 0;
            });
        }
    }
}
