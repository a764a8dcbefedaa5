package dev.backstage.runtime.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code backstage schedule <task> <payload> --delay 30s}: enqueue with a required delay. */
@Command(name = "schedule", description = "Schedule a job after --delay (needs the delays capability).")
final class ScheduleCommand extends EnqueueCommand {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (delay == null) {
            throw new ParameterException(spec.commandLine(), "schedule needs --delay, e.g. --delay 30s");
        }
        return super.call();
    }
}
