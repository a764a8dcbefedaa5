package dev.backstage.operator.testing;

import io.fabric8.kubernetes.api.model.authorization.v1.ResourceRuleBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectRulesReviewStatusBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.HttpURLConnection;
import java.util.List;

/**
 * The fabric8 CRUD dispatcher plus the one API the operator calls that the CRUD mock cannot answer: a
 * SelfSubjectRulesReview (JOSDK asks one before leader election; the mock rejects it as an object without
 * metadata). It answers as the API server would for the operator's service account with the Helm chart's
 * Lease permissions (get, create, update on coordination.k8s.io leases), and nothing else.
 */
final class MockApiServerDispatcher extends KubernetesCrudDispatcher {
    MockApiServerDispatcher() {
        super(List.of());
    }

    @Override
    public MockResponse handleCreate(RecordedRequest request) {
        if (request.getPath().contains("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews")) {
            SelfSubjectRulesReview review =
                    Serialization.unmarshal(request.getUtf8Body(), SelfSubjectRulesReview.class);
            review.setStatus(new SubjectRulesReviewStatusBuilder()
                    .withIncomplete(false)
                    .withResourceRules(new ResourceRuleBuilder()
                            .withApiGroups("coordination.k8s.io")
                            .withResources("leases")
                            .withVerbs("get", "create", "update")
                            .build())
                    .build());
            return new MockResponse()
                    .setResponseCode(HttpURLConnection.HTTP_CREATED)
                    .setHeader("Content-Type", "application/json")
                    .setBody(Serialization.asJson(review));
        }
        return super.handleCreate(request);
    }
}
