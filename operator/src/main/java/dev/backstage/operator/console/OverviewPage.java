package dev.backstage.operator.console;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.Condition;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** The overview: the pools and topologies the user may read, with a namespace filter. Pure rendering. */
final class OverviewPage {
    private OverviewPage() {}

    /**
     * @param pools      the pools the user may {@code get}, filtered by {@code namespace} already
     * @param namespaces every namespace the user sees something in (the filter's choices)
     */
    static String body(
            List<BackstageWorkerPool> pools,
            List<BackstageTopology> topologies,
            Set<String> namespaces,
            String namespace) {
        StringBuilder out = new StringBuilder(512 + pools.size() * 400);
        out.append("<h1>Pools</h1><form method=\"get\" action=\"/\" class=\"filter\"><label for=\"namespace\">")
                .append(
                        "Namespace</label> <select id=\"namespace\" name=\"namespace\"><option value=\"\">all</option>");
        for (String ns : new TreeSet<>(namespaces)) {
            out.append("<option value=\"")
                    .append(Html.text(ns))
                    .append('"')
                    .append(ns.equals(namespace) ? " selected" : "")
                    .append('>')
                    .append(Html.text(ns))
                    .append("</option>");
        }
        out.append("</select> <button type=\"submit\">Filter</button></form>");
        out.append("<table class=\"pools\"><thead><tr><th>Namespace</th><th>Pool</th><th>Ready</th>")
                .append("<th>Ready / desired</th><th>Backlog</th><th>In flight</th><th>Dead letters</th>")
                .append("<th>Last scaling</th></tr></thead><tbody>");
        for (BackstageWorkerPool pool : pools) {
            String ns = pool.getMetadata().getNamespace();
            String name = pool.getMetadata().getName();
            BackstageWorkerPoolStatus s = pool.getStatus() == null ? new BackstageWorkerPoolStatus() : pool.getStatus();
            out.append("<tr class=\"pool\" data-pool=\"")
                    .append(Html.text(ns + "/" + name))
                    .append("\"><td>")
                    .append(Html.text(ns))
                    .append("</td><td><a href=\"/pools/")
                    .append(Html.text(Html.url(ns)))
                    .append('/')
                    .append(Html.text(Html.url(name)))
                    .append("\">")
                    .append(Html.text(name))
                    .append("</a></td><td>")
                    .append(Html.text(condition(s.getConditions(), "Ready")))
                    .append("</td><td class=\"replicas\">")
                    .append(orDash(s.getReadyReplicas()))
                    .append(" / ")
                    .append(orDash(s.getDesiredReplicas()))
                    .append("</td><td class=\"backlog\">")
                    .append(orDash(
                            s.getBacklog() == null ? null : s.getBacklog().getOutstanding()))
                    .append("</td><td>")
                    .append(orDash(
                            s.getBacklog() == null ? null : s.getBacklog().getInFlight()))
                    .append("</td><td class=\"dead\">")
                    .append(orDash(
                            s.getDeadLetters() == null
                                    ? null
                                    : s.getDeadLetters().getTotal()))
                    .append("</td><td>")
                    .append(Html.text(
                            s.getLastScaleTime() == null ? "-" : s.getLastScaleTime() + ": " + s.getLastScaleReason()))
                    .append("</td></tr>");
        }
        if (pools.isEmpty()) {
            out.append("<tr><td colspan=\"8\">No pool you may read here.</td></tr>");
        }
        out.append("</tbody></table><h1>Topologies</h1><table class=\"topologies\"><thead><tr><th>Namespace</th>")
                .append("<th>Topology</th><th>Ready</th><th>Queues</th><th>Schedules</th></tr></thead><tbody>");
        for (BackstageTopology topology : topologies) {
            String ns = topology.getMetadata().getNamespace();
            out.append("<tr><td>")
                    .append(Html.text(ns))
                    .append("</td><td>")
                    .append(Html.text(topology.getMetadata().getName()))
                    .append("</td><td>")
                    .append(Html.text(
                            topology.getStatus() == null
                                    ? "Unknown"
                                    : condition(topology.getStatus().getConditions(), "Ready")))
                    .append("</td><td>")
                    .append(
                            topology.getSpec() == null || topology.getSpec().getQueues() == null
                                    ? 0
                                    : topology.getSpec().getQueues().size())
                    .append("</td><td><a href=\"/schedules?namespace=")
                    .append(Html.text(Html.url(ns)))
                    .append("\">")
                    .append(
                            topology.getSpec() == null || topology.getSpec().getSchedules() == null
                                    ? 0
                                    : topology.getSpec().getSchedules().size())
                    .append("</a></td></tr>");
        }
        return out.append("</tbody></table>").toString();
    }

    static String condition(List<Condition> conditions, String type) {
        if (conditions == null) {
            return "Unknown";
        }
        return conditions.stream()
                .filter(c -> type.equals(c.getType()))
                .findFirst()
                .map(c -> c.getStatus() + (c.getReason() == null ? "" : " (" + c.getReason() + ")"))
                .orElse("Unknown");
    }

    static String orDash(Number value) {
        return value == null ? "-" : value.toString();
    }
}
