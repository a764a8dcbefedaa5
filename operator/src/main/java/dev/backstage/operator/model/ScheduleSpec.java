package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.JsonNode;
import dev.backstage.runtime.spi.BrokerNames;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * A cron schedule of a topology: at each tick the leader operator enqueues one job on the topology's broker, once
 * even across a failover (the tick is claimed with the dedupe key {@code cron:<name>:<tickEpochMs>} first).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ScheduleSpec {
    @Required
    @Size(min = 1, max = BrokerNames.SCHEDULE_MAX_LENGTH)
    @ValidationRule(value = BrokerNameRules.SCHEDULE, message = BrokerNameRules.SCHEDULE_MESSAGE)
    @JsonPropertyDescription("Schedule name, unique in the topology: part of each tick's dedupe key.")
    private String name;

    @Required
    @Size(min = 1, max = 200)
    @JsonPropertyDescription("Cron expression as in the seed SDKs: 5 fields 'minute hour day-of-month month"
            + " day-of-week' (e.g. '*/5 * * * *'), 6 with a leading seconds field, or @hourly, @daily, @weekly,"
            + " @monthly, @yearly.")
    private String schedule;

    @Size(max = 100)
    @JsonPropertyDescription("IANA time zone the expression is read in (e.g. Europe/Paris); default UTC.")
    private String timeZone;

    @Required
    @Size(min = 1, max = BrokerNames.TASK_MAX_LENGTH)
    @ValidationRule(value = BrokerNameRules.TASK, message = BrokerNameRules.TASK_MESSAGE)
    @JsonPropertyDescription("Task name of the job each tick enqueues.")
    private String task;

    @Default("default")
    @Size(min = 1, max = BrokerNames.QUEUE_MAX_LENGTH)
    @ValidationRule(value = BrokerNameRules.QUEUE, message = BrokerNameRules.QUEUE_MESSAGE)
    @ValidationRule(value = BrokerNameRules.NOT_RESERVED, message = BrokerNameRules.NOT_RESERVED_MESSAGE)
    @JsonPropertyDescription("Queue the job goes to; must be one of spec.queues. Default: default.")
    private String queue = "default";

    @JsonPropertyDescription("The job's args: each job's payload is the seeds' cron envelope"
            + " {\"taskName\": <task>, \"args\": <payload>}. Any JSON value; default [].")
    private JsonNode payload;

    @Default("false")
    @JsonPropertyDescription("true stops firing; ticks that pass meanwhile count as missed, and on resume the latest"
            + " one fires if it is within startingDeadlineSeconds.")
    private Boolean suspend = Boolean.FALSE;

    @Min(1)
    @JsonPropertyDescription("How late a tick may still be fired (after an operator outage or failover); a later one"
            + " is skipped and counted missed. Unset: no limit (still only the latest missed tick fires).")
    private Long startingDeadlineSeconds;

    public ScheduleSpec() {}

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public String getSchedule() {
        return schedule;
    }

    public void setSchedule(String schedule) {
        this.schedule = schedule;
    }

    public String getTimeZone() {
        return timeZone;
    }

    public void setTimeZone(String timeZone) {
        this.timeZone = timeZone;
    }

    public String getTask() {
        return task;
    }

    public void setTask(String task) {
        this.task = task;
    }

    public String getQueue() {
        return queue;
    }

    public void setQueue(String queue) {
        this.queue = queue;
    }

    public JsonNode getPayload() {
        return payload;
    }

    public void setPayload(JsonNode payload) {
        this.payload = payload;
    }

    public Boolean getSuspend() {
        return suspend;
    }

    public void setSuspend(Boolean suspend) {
        this.suspend = suspend;
    }

    public Long getStartingDeadlineSeconds() {
        return startingDeadlineSeconds;
    }

    public void setStartingDeadlineSeconds(Long startingDeadlineSeconds) {
        this.startingDeadlineSeconds = startingDeadlineSeconds;
    }
}
