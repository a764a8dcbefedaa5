package dev.backstage.runtime.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.MemberToRemove;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker restarted without a pod name gets a new default consumer id ({@code <host>-<pid>}), so its static
 * membership cannot take over the killed process's: the group would keep the dead member, and its partitions,
 * until its session times out. Before joining, a worker with such a default id removes the group's static members
 * whose instance id is {@code <same host>-<pid>-<same suffix>} for a process that no longer exists on this host:
 * they are certainly dead, and their partitions move at once. Best effort: a failure is logged and the session
 * timeout still evicts them.
 */
final class DeadSiblingMembers {
    private static final Logger log = LoggerFactory.getLogger(DeadSiblingMembers.class);

    private DeadSiblingMembers() {}

    /**
     * @param instanceId this consumer's {@code group.instance.id}, e.g. {@code host-1234-jobs}
     * @param host       this machine's host name (the default consumer id's first part)
     * @param pid        this process's id
     */
    static void removeDead(Admin admin, String group, String instanceId, String host, long pid) {
        String mine = host + "-" + pid;
        if (!instanceId.startsWith(mine + "-")) {
            return; // an explicit consumer id (e.g. the pod name): a restart keeps it, static membership does the rest
        }
        Pattern sibling = Pattern.compile(
                Pattern.quote(host + "-") + "(\\d+)" + Pattern.quote(instanceId.substring(mine.length())));
        try {
            ConsumerGroupDescription described = admin.describeConsumerGroups(List.of(group))
                    .describedGroups()
                    .get(group)
                    .get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            List<MemberToRemove> dead = new ArrayList<>();
            for (MemberDescription member : described.members()) {
                String other = member.groupInstanceId().orElse(null);
                Matcher m = other == null ? null : sibling.matcher(other);
                if (m != null && m.matches() && !alive(Long.parseLong(m.group(1)), pid)) {
                    dead.add(new MemberToRemove(other));
                }
            }
            if (dead.isEmpty()) {
                return;
            }
            admin.removeMembersFromConsumerGroup(group, new RemoveMembersFromConsumerGroupOptions(dead))
                    .all()
                    .get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            log.info(
                    "removed {} member(s) of group {} left by processes of this host that no longer run: {}",
                    dead.size(),
                    group,
                    dead.stream().map(MemberToRemove::groupInstanceId).toList());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof GroupIdNotFoundException)) { // a new group has no members to remove
                warn(group, e);
            }
        } catch (Exception e) {
            warn(group, e);
        }
    }

    private static void warn(String group, Exception e) {
        log.warn(
                "could not remove dead members of group {} ({}); they leave when their session times out",
                group,
                KafkaBrokerException.describe(e));
    }

    private static boolean alive(long otherPid, long myPid) {
        return otherPid == myPid
                || ProcessHandle.of(otherPid).map(ProcessHandle::isAlive).orElse(false);
    }
}
