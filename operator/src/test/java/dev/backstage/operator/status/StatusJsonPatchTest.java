package dev.backstage.operator.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.fabric8.zjsonpatch.JsonPatch;
import org.junit.jupiter.api.Test;

class StatusJsonPatchTest {
    private final ObjectMapper json = new ObjectMapper();

    private JsonNode read(String text) throws Exception {
        return json.readTree(text.replace('\'', '"'));
    }

    @Test
    void givenEqualStatuses_thenNoOperationsAtAll() throws Exception {
        JsonNode status = read("{'replicas':2,'conditions':[{'type':'Ready'}]}");
        assertTrue(StatusJsonPatch.between(status, status.deepCopy(), "7").isEmpty());
    }

    @Test
    void givenChangedAddedAndRemovedFields_thenEachIsWrittenWholeBehindTheResourceVersionLock() throws Exception {
        JsonNode before =
                read("{'replicas':2,'backlog':{'undelivered':5,'queues':[{'queue':'a'}]},'lastScaleReason':'x'}");
        JsonNode after = read("{'replicas':2,'backlog':{'undelivered':0,'queues':[]},'desiredReplicas':3}");

        ArrayNode patch = StatusJsonPatch.between(before, after, "42");

        assertEquals(read("""
                [{'op':'replace','path':'/metadata/resourceVersion','value':'42'},
                 {'op':'add','path':'/status/backlog','value':{'undelivered':0,'queues':[]}},
                 {'op':'add','path':'/status/desiredReplicas','value':3},
                 {'op':'remove','path':'/status/lastScaleReason'}]"""), patch);
        JsonNode object = read("{'metadata':{'resourceVersion':'42'},'status':" + before + "}");
        assertEquals(after, JsonPatch.apply(patch, object).get("status"), "applying it yields the new status");
    }

    @Test
    void givenAFieldBecomingNull_thenItIsRemoved_andAnAbsentOneStaysAbsent() throws Exception {
        ArrayNode patch = StatusJsonPatch.between(read("{'a':1,'b':null}"), read("{'a':null,'b':null}"), "1");
        assertEquals(
                read("[{'op':'replace','path':'/metadata/resourceVersion','value':'1'},"
                        + "{'op':'remove','path':'/status/a'}]"),
                patch);
    }
}
