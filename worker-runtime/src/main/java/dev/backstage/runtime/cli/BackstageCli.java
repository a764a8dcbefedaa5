package dev.backstage.runtime.cli;

import dev.backstage.runtime.logging.LogBackend;
import dev.backstage.runtime.logging.LogFormat;
import dev.backstage.runtime.logging.LogSettings;
import dev.backstage.runtime.spi.BackstageException;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;

/**
 * {@code backstage}: enqueue and schedule jobs, inspect backlog, list and redrive dead letters, on any
 * provider, through the same SPI the workers and the operator use.
 *
 * <p>Every failure is one line on stderr that says what to change. Exit codes: 0 done, 1 unexpected failure,
 * 2 bad command line or input, 3 the broker could not be reached or refused the request.
 */
@Command(
        name = "backstage",
        mixinStandardHelpOptions = true,
        scope = ScopeType.INHERIT,
        version = "backstage 0.1.0",
        description = "Backstage queue tool: enqueue, schedule, inspect, dead-letters.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:done",
            "1:unexpected failure (BACKSTAGE_CLI_DEBUG=1 prints its stack trace)",
            "2:bad command line or input",
            "3:the broker could not be reached or refused the request"
        },
        subcommands = {EnqueueCommand.class, ScheduleCommand.class, InspectCommand.class, DeadLettersCommand.class})
public final class BackstageCli implements Runnable {
    static final int BAD_INPUT = 2;
    static final int BROKER_FAILED = 3;

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    public static int execute(String... args) {
        CommandLine cli = new CommandLine(new BackstageCli());
        cli.setExpandAtFiles(false); // @path is a payload file (JsonPayloadConverter), not picocli's argument file
        cli.setParameterExceptionHandler(BackstageCli::badCommandLine);
        cli.setExecutionExceptionHandler((e, line, parsed) -> {
            PrintWriter err = line.getErr();
            if (e instanceof BrokerFailure) {
                err.println("error: " + e.getMessage());
                return BROKER_FAILED;
            }
            if (e instanceof BackstageException || e instanceof IllegalArgumentException) {
                err.println("error: " + e.getMessage());
                return BAD_INPUT;
            }
            if (System.getenv("BACKSTAGE_CLI_DEBUG") != null) {
                e.printStackTrace(err);
            } else {
                err.println("error: unexpected " + e + " (set BACKSTAGE_CLI_DEBUG=1 to print the stack trace)");
            }
            return 1;
        });
        return cli.execute(args);
    }

    /** picocli's usage errors, in one line that names the fix and where the help is. */
    private static int badCommandLine(ParameterException e, String[] args) {
        CommandLine line = e.getCommandLine();
        line.getErr()
                .println("error: " + e.getMessage() + " (see: "
                        + line.getCommandSpec().qualifiedName() + " --help)");
        return BAD_INPUT;
    }

    public static void main(String[] args) {
        // A command-line tool answers in its own lines on stdout (ids, tables) and says what went wrong in one line
        // on stderr: the broker clients' log lines (Kafka's reconnect warnings, ...) are plain text on stderr at
        // error level, info with BACKSTAGE_CLI_DEBUG. No JSON: its output is read by people and by scripts that
        // parse stdout, which log lines never touch.
        LogBackend.configure(
                new LogSettings(
                        System.getenv("BACKSTAGE_CLI_DEBUG") != null ? "info" : "error", Map.of(), LogFormat.TEXT),
                LogBackend.Target.STDERR);
        System.exit(execute(args));
    }
}
