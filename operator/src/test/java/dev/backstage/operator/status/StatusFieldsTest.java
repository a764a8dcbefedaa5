package dev.backstage.operator.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StatusFieldsTest {
    private final ObjectMapper json = new ObjectMapper();
    private final StatusFields autoscaler =
            new StatusFields(Set.of("backlog", "desiredReplicas"), Set.of("BacklogAvailable"));

    private JsonNode read(String text) throws Exception {
        return json.readTree(text.replace('\'', '"'));
    }

    @Test
    void givenChangesToOwnedFieldsAndOwnedConditions_thenNothingIsForeign() throws Exception {
        JsonNode before = read("{'replicas':2,'backlog':{'undelivered':5},"
                + "'conditions':[{'type':'Ready','status':'True'},{'type':'BacklogAvailable','status':'True'}]}");
        JsonNode after = read("{'replicas':2,'backlog':{'undelivered':0},'desiredReplicas':3,"
                + "'conditions':[{'type':'Ready','status':'True'},{'type':'BacklogAvailable','status':'False'}]}");

        assertEquals(List.of(), autoscaler.foreignChanges(before, after));
    }

    @Test
    void givenAnotherWritersFieldSetOrRemoved_thenEachIsNamed() throws Exception {
        JsonNode before = read("{'replicas':2,'selector':'app=a'}");
        JsonNode after = read("{'replicas':3,'observedGeneration':4}");

        assertEquals(List.of("observedGeneration", "replicas", "selector"), autoscaler.foreignChanges(before, after));
    }

    @Test
    void givenAnotherWritersConditionChangedAddedOrRemoved_thenItsTypeIsNamed() throws Exception {
        JsonNode before = read("{'conditions':[{'type':'Ready','status':'True'},{'type':'Scaling','status':'False'}]}");
        JsonNode after = read("{'conditions':[{'type':'Ready','status':'False'},{'type':'Stalled','status':'True'}]}");

        assertEquals(
                List.of("conditions[Ready]", "conditions[Scaling]", "conditions[Stalled]"),
                autoscaler.foreignChanges(before, after));
    }

    @Test
    void givenAFieldWrittenAsNullThatWasAbsent_thenNothingChanged() throws Exception {
        assertEquals(List.of(), autoscaler.foreignChanges(read("{}"), read("{'replicas':null}")));
    }

    @Test
    void givenConditionsNamedAsAField_thenTheDeclarationIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new StatusFields(Set.of("conditions"), Set.of()));
    }
}
