package dev.backstage.operator.console;

import dev.backstage.runtime.spi.DeadLetterEntry;
import java.time.Instant;
import java.util.List;

/**
 * One page of a queue's dead letters (at most {@link #PAGE_SIZE}, never the whole queue), each with its payload as
 * text, and the redrive / delete actions. Pure rendering.
 */
final class DeadLetterPage {
    static final int PAGE_SIZE = 20;

    private DeadLetterPage() {}

    /**
     * @param entries    up to {@code PAGE_SIZE + 1} entries: one more than shown tells whether a next page exists
     * @param afterId    the entry this page starts after (null on the first page)
     * @param total      the queue's dead letters as the broker counts them
     * @param oneByOne   whether the broker redrives and deletes single entries
     */
    static String body(
            String namespace,
            String pool,
            String queue,
            List<DeadLetterEntry> entries,
            String afterId,
            long total,
            boolean oneByOne,
            String csrf) {
        String base = "/pools/" + Html.url(namespace) + "/" + Html.url(pool) + "/dead-letters";
        StringBuilder out = new StringBuilder(4096);
        out.append("<h1>Dead letters of ")
                .append(Html.text(queue))
                .append(" in ")
                .append(Html.text(namespace))
                .append('/')
                .append(Html.text(pool))
                .append("</h1><p><span class=\"total\">")
                .append(total)
                .append("</span> in the queue. <a href=\"/pools/")
                .append(Html.text(Html.url(namespace)))
                .append('/')
                .append(Html.text(Html.url(pool)))
                .append("\">Back to the pool</a></p>");
        out.append(Layout.action(
                base + "/redrive-all",
                csrf,
                "Redrive all",
                "Redrive every dead letter of " + queue + "?",
                "queue",
                queue));
        List<DeadLetterEntry> shown = entries.size() > PAGE_SIZE ? entries.subList(0, PAGE_SIZE) : entries;
        out.append("<table class=\"dead-letters\"><thead><tr><th>Id</th><th>Task</th><th>Job id</th>")
                .append(
                        "<th>Deliveries</th><th>Dead-lettered</th><th>Error</th><th>Payload</th><th></th></tr></thead><tbody>");
        for (DeadLetterEntry e : shown) {
            out.append("<tr class=\"dead-letter\" data-id=\"")
                    .append(Html.text(e.id()))
                    .append("\"><td>")
                    .append(Html.text(e.id()))
                    .append("</td><td>")
                    .append(Html.text(e.taskName()))
                    .append("</td><td>")
                    .append(Html.text(e.originalId()))
                    .append("</td><td>")
                    .append(OverviewPage.orDash(e.deliveryCount()))
                    .append("</td><td>")
                    .append(
                            e.deadLetteredAtMs() == null
                                    ? "-"
                                    : Html.text(Instant.ofEpochMilli(e.deadLetteredAtMs())
                                            .toString()))
                    .append("</td><td class=\"error\">")
                    .append(Html.text(e.error()))
                    .append("</td><td><pre class=\"payload\">")
                    .append(Html.text(PayloadText.of(e.payloadJson())))
                    .append("</pre></td><td>");
            if (oneByOne) {
                out.append(Layout.action(
                                base + "/redrive",
                                csrf,
                                "Redrive",
                                "Redrive " + e.id() + "?",
                                "queue",
                                queue,
                                "id",
                                e.id()))
                        .append(Layout.action(
                                base + "/delete",
                                csrf,
                                "Delete",
                                "Delete " + e.id() + " for good?",
                                "queue",
                                queue,
                                "id",
                                e.id()));
            }
            out.append("</td></tr>");
        }
        if (shown.isEmpty()) {
            out.append("<tr><td colspan=\"8\">No dead letters.</td></tr>");
        }
        out.append("</tbody></table><p class=\"paging\">");
        if (afterId != null) {
            out.append("<a href=\"")
                    .append(Html.text(base + "?queue=" + Html.url(queue)))
                    .append("\">First page</a> ");
        }
        if (entries.size() > PAGE_SIZE) {
            out.append("<a class=\"next\" href=\"")
                    .append(Html.text(base + "?queue=" + Html.url(queue) + "&after="
                            + Html.url(shown.get(shown.size() - 1).id())))
                    .append("\">Next page</a>");
        }
        return out.append("</p>").toString();
    }
}
