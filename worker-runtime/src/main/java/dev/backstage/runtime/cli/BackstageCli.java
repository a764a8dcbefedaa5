package dev.backstage.runtime.cli;

import dev.backstage.runtime.spi.BackstageException;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/**
 * {@code backstage}: enqueue and schedule jobs, inspect backlog, list and redrive dead letters, on any
 * provider, through the same SPI the workers and the operator use.
 */
@Command(name = "backstage", mixinStandardHelpOptions = true, version = "backstage 0.1.0",
        description = "Backstage queue tool: enqueue, schedule, inspect, dead-letters.",
        subcommands = {EnqueueCommand.class, ScheduleCommand.class, InspectCommand.class, DeadLettersCommand.class})
public final class BackstageCli implements Runnable {
    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    public static int execute(String... args) {
        CommandLine cli = new CommandLine(new BackstageCli());
        cli.setExecutionExceptionHandler((e, line, parsed) -> {
            if (e instanceof BackstageException || e instanceof IllegalArgumentException) {
                line.getErr().println("error: " + e.getMessage());
                return 2;
            }
            throw e;
        });
        return cli.execute(args);
    }

    public static void main(String[] args) {
        System.exit(execute(args));
    }
}
