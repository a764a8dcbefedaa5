package dev.backstage.runtime.cli;

import picocli.CommandLine.Command;

/** {@code backstage schedule <task> <payload> --delay 30s}: enqueue with a required delay. */
@Command(name = "schedule", description = "Schedule a job after --delay (needs the delays capability).")
final class ScheduleCommand extends EnqueueCommand {
    @Override
    public Integer call() {
        if (delay == null) {
            throw new IllegalArgumentException("schedule needs --delay, e.g. --delay 30s");
        }
        return super.call();
    }
}
