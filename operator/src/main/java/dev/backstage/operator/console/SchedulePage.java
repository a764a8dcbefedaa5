package dev.backstage.operator.console;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.FiredTick;
import dev.backstage.operator.model.ScheduleSpec;
import dev.backstage.operator.model.ScheduleStatus;
import dev.backstage.runtime.spi.schedule.CronExpression;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The schedules of the topologies the user may read: cron, zone, next three ticks, the last fired ticks with the
 * id of the job each enqueued, missed ticks, suspend/resume. Pure rendering.
 */
final class SchedulePage {
    private SchedulePage() {}

    static String body(List<BackstageTopology> topologies, Instant now, String csrf) {
        StringBuilder out = new StringBuilder(4096);
        out.append("<h1>Schedules</h1><table class=\"schedules\"><thead><tr><th>Namespace</th><th>Topology</th>")
                .append("<th>Schedule</th><th>Cron</th><th>Time zone</th><th>Task</th><th>Next three ticks</th>")
                .append("<th>Last ticks (job id)</th><th>Missed</th><th>Suspended</th><th></th></tr></thead><tbody>");
        int rows = 0;
        for (BackstageTopology topology : topologies) {
            if (topology.getSpec() == null || topology.getSpec().getSchedules() == null) {
                continue;
            }
            String ns = topology.getMetadata().getNamespace();
            String name = topology.getMetadata().getName();
            for (ScheduleSpec schedule : topology.getSpec().getSchedules()) {
                rows++;
                boolean suspended = Boolean.TRUE.equals(schedule.getSuspend());
                Optional<ScheduleStatus> status =
                        topology.getStatus() == null || topology.getStatus().getSchedules() == null
                                ? Optional.empty()
                                : topology.getStatus().getSchedules().stream()
                                        .filter(s -> schedule.getName().equals(s.getName()))
                                        .findFirst();
                out.append("<tr class=\"schedule\" data-schedule=\"")
                        .append(Html.text(schedule.getName()))
                        .append("\"><td>")
                        .append(Html.text(ns))
                        .append("</td><td>")
                        .append(Html.text(name))
                        .append("</td><td>")
                        .append(Html.text(schedule.getName()))
                        .append("</td><td>")
                        .append(Html.text(schedule.getSchedule()))
                        .append("</td><td>")
                        .append(Html.text(schedule.getTimeZone() == null ? "UTC" : schedule.getTimeZone()))
                        .append("</td><td>")
                        .append(Html.text(schedule.getTask()))
                        .append("</td><td>")
                        .append(suspended ? "-" : Html.text(String.join(", ", nextTicks(schedule, now, 3))))
                        .append("</td><td>")
                        .append(lastTicks(status.orElse(null)))
                        .append("</td><td>")
                        .append(status.map(ScheduleStatus::getMissedTicks)
                                .map(String::valueOf)
                                .orElse("0"))
                        .append("</td><td class=\"suspended\">")
                        .append(suspended ? "yes" : "no")
                        .append("</td><td>")
                        .append(Layout.action(
                                "/schedules/" + Html.url(ns) + "/" + Html.url(name)
                                        + (suspended ? "/resume" : "/suspend"),
                                csrf,
                                suspended ? "Resume" : "Suspend",
                                (suspended ? "Resume " : "Suspend ") + schedule.getName() + "?",
                                "schedule",
                                schedule.getName()))
                        .append("</td></tr>");
            }
        }
        if (rows == 0) {
            out.append("<tr><td colspan=\"11\">No schedule you may read here.</td></tr>");
        }
        return out.append("</tbody></table>").toString();
    }

    /** The fired ticks, newest first, each with its job id; "-" before the first. */
    static String lastTicks(ScheduleStatus status) {
        if (status == null
                || status.getRecentTicks() == null
                || status.getRecentTicks().isEmpty()) {
            return Html.text(status == null || status.getLastFiredTick() == null ? "-" : status.getLastFiredTick());
        }
        StringBuilder out = new StringBuilder("<ul class=\"ticks\">");
        for (FiredTick fired : status.getRecentTicks()) {
            out.append("<li class=\"tick\">")
                    .append(Html.text(fired.getTick()))
                    .append(' ')
                    .append(
                            fired.getJobId() == null
                                    ? "<span class=\"elsewhere\">(enqueued by another scheduler)</span>"
                                    : "<code class=\"job-id\">" + Html.text(fired.getJobId()) + "</code>")
                    .append("</li>");
        }
        return out.append("</ul>").toString();
    }

    /** The next {@code count} ticks after {@code now}; one entry naming the problem when the expression is bad. */
    static List<String> nextTicks(ScheduleSpec schedule, Instant now, int count) {
        List<String> ticks = new ArrayList<>(count);
        try {
            CronExpression cron = CronExpression.parse(schedule.getSchedule());
            ZoneId zone = schedule.getTimeZone() == null ? ZoneOffset.UTC : ZoneId.of(schedule.getTimeZone());
            Instant at = now;
            for (int i = 0; i < count; i++) {
                Optional<Instant> next = cron.next(at, zone);
                if (next.isEmpty()) {
                    break;
                }
                ticks.add(next.get().toString());
                at = next.get();
            }
        } catch (IllegalArgumentException | DateTimeException e) {
            ticks.add("invalid: " + e.getMessage());
        }
        return ticks;
    }
}
