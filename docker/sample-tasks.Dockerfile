# syntax=docker/dockerfile:1
# A worker image as users build one: the runtime image plus a task module jar (examples/sample-tasks:
# processOrder -> sendReceipt). Build the runtime image first, then from the repository root:
#   docker build -f docker/sample-tasks.Dockerfile -t backstage-sample-tasks:0.1.0 .
# Reference it from a BackstageWorkerPool's spec.image.

ARG RUNTIME_IMAGE=backstage-runtime:0.1.0
ARG MAVEN_IMAGE=maven:3-eclipse-temurin-17

FROM ${MAVEN_IMAGE} AS build
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/root/.m2 \
    mvn -B -ntp -DskipTests package -pl examples/sample-tasks -am
RUN set -eu; \
    jar=$(find examples/sample-tasks/target -maxdepth 1 -name 'sample-tasks-*.jar' ! -name '*-sources.jar' ! -name '*-tests.jar' ! -name '*-javadoc.jar'); \
    cp "$jar" /sample-tasks.jar

FROM ${RUNTIME_IMAGE}
# This is all a user's image needs: the task jar (and its own dependencies, if any) in /opt/backstage/tasks/.
COPY --from=build /sample-tasks.jar /opt/backstage/tasks/
