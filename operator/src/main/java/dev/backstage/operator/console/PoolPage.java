package dev.backstage.operator.console;

import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.QueueDeadLetterStatus;
import java.util.List;

/** One pool: its figures, its history plot, its conditions and links to each queue's dead letters. Pure rendering. */
final class PoolPage {
    private PoolPage() {}

    /**
     * @param events the pool's newest Events, or null when the user may not list Events in the namespace
     */
    static String body(
            BackstageWorkerPool pool,
            List<PoolSample> history,
            long historySeconds,
            List<io.fabric8.kubernetes.api.model.Event> events) {
        String ns = pool.getMetadata().getNamespace();
        String name = pool.getMetadata().getName();
        BackstageWorkerPoolStatus s = pool.getStatus() == null ? new BackstageWorkerPoolStatus() : pool.getStatus();
        StringBuilder out = new StringBuilder(8192);
        out.append("<h1>Pool ")
                .append(Html.text(ns))
                .append('/')
                .append(Html.text(name))
                .append("</h1>")
                .append("<dl class=\"figures\"><dt>Ready / desired</dt><dd class=\"replicas\">")
                .append(OverviewPage.orDash(s.getReadyReplicas()))
                .append(" / ")
                .append(OverviewPage.orDash(s.getDesiredReplicas()))
                .append("</dd><dt>Backlog</dt><dd class=\"backlog\">")
                .append(OverviewPage.orDash(
                        s.getBacklog() == null ? null : s.getBacklog().getOutstanding()))
                .append("</dd><dt>Measured at</dt><dd>")
                .append(Html.text(s.getBacklogMeasuredAt() == null ? "-" : s.getBacklogMeasuredAt()))
                .append("</dd><dt>Last scaling</dt><dd class=\"reason\">")
                .append(Html.text(
                        s.getLastScaleTime() == null ? "-" : s.getLastScaleTime() + ": " + s.getLastScaleReason()))
                .append("</dd></dl>");
        out.append("<h2>Last ")
                .append(historySeconds / 60)
                .append(" minutes</h2>")
                .append("<p class=\"legend\"><span class=\"backlog\">backlog</span> <span class=\"inflight\">in flight")
                .append("</span> (left scale) · <span class=\"desired\">desired</span> <span class=\"ready\">ready")
                .append("</span> replicas (right scale) · dotted: a scaling decision · ")
                .append(history.size())
                .append(" samples</p>")
                .append(HistoryPlot.svg(history));
        out.append("<h2>Dead letters</h2><ul class=\"queues\">");
        List<String> queues = pool.getSpec() == null || pool.getSpec().getQueues() == null
                ? List.of()
                : pool.getSpec().getQueues();
        for (String queue : queues) {
            long count = s.getDeadLetters() == null || s.getDeadLetters().getQueues() == null
                    ? 0
                    : s.getDeadLetters().getQueues().stream()
                            .filter(q -> queue.equals(q.getQueue()))
                            .map(QueueDeadLetterStatus::getCount)
                            .filter(c -> c != null)
                            .findFirst()
                            .orElse(0L);
            out.append("<li><a class=\"dlq\" href=\"/pools/")
                    .append(Html.text(Html.url(ns)))
                    .append('/')
                    .append(Html.text(Html.url(name)))
                    .append("/dead-letters?queue=")
                    .append(Html.text(Html.url(queue)))
                    .append("\">")
                    .append(Html.text(queue))
                    .append("</a>: ")
                    .append(count)
                    .append("</li>");
        }
        out.append("</ul><h2>Conditions</h2><table><thead><tr><th>Type</th><th>Status</th><th>Reason</th>")
                .append("<th>Message</th><th>Since</th></tr></thead><tbody>");
        for (Condition c : s.getConditions() == null ? List.<Condition>of() : s.getConditions()) {
            out.append("<tr><td>")
                    .append(Html.text(c.getType()))
                    .append("</td><td>")
                    .append(Html.text(c.getStatus()))
                    .append("</td><td>")
                    .append(Html.text(c.getReason()))
                    .append("</td><td>")
                    .append(Html.text(c.getMessage()))
                    .append("</td><td>")
                    .append(Html.text(c.getLastTransitionTime()))
                    .append("</td></tr>");
        }
        out.append("</tbody></table><h2>Recent Events</h2>");
        if (events == null) {
            out.append("<p class=\"events-refused\">Your RBAC does not allow 'list' on events in ")
                    .append(Html.text(ns))
                    .append(".</p>");
            return out.toString();
        }
        out.append("<table class=\"events\"><thead><tr><th>Last seen</th><th>Type</th><th>Reason</th><th>Count</th>")
                .append("<th>Message</th></tr></thead><tbody>");
        for (io.fabric8.kubernetes.api.model.Event e : events) {
            out.append("<tr class=\"event\"><td>")
                    .append(Html.text(
                            e.getLastTimestamp() != null
                                    ? e.getLastTimestamp()
                                    : e.getMetadata().getCreationTimestamp()))
                    .append("</td><td>")
                    .append(Html.text(e.getType()))
                    .append("</td><td>")
                    .append(Html.text(e.getReason()))
                    .append("</td><td>")
                    .append(e.getCount() == null ? 1 : e.getCount())
                    .append("</td><td>")
                    .append(Html.text(e.getMessage()))
                    .append("</td></tr>");
        }
        if (events.isEmpty()) {
            out.append("<tr><td colspan=\"5\">No Events.</td></tr>");
        }
        return out.append("</tbody></table>").toString();
    }
}
