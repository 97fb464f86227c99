# lifecycled: built on the official Swift image, run on slim Debian with libuv as its only
# addition. The smoke test (scripts/container-smoke) builds, checks and starts the binary the way
# this file does, so keep the two in step: it reads this file.

ARG SWIFT_VERSION=6.3.1

FROM swift:${SWIFT_VERSION}-bookworm AS build
# Versions come from the pinned bookworm base; Debian's security updates replace exact versions.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libuv1-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN swift build -c release --static-swift-stdlib --disable-default-traits --product lifecycled \
    && cp "$(swift build -c release --static-swift-stdlib --disable-default-traits --show-bin-path)/lifecycled" /usr/local/bin/

FROM debian:bookworm-slim
# Everything the binary links besides libc (scripts/container-smoke checks this list with ldd).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libuv1 libstdc++6 libgcc-s1 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --no-create-home --shell /usr/sbin/nologin lifecycled
COPY --from=build /usr/local/bin/lifecycled /usr/local/bin/lifecycled
# The defaults, for reference and as the file to replace: mount yours over it
# (docker run -v ./my.json:/etc/lifecycled/lifecycled.json:ro ...).
COPY config/lifecycled.json /etc/lifecycled/lifecycled.json
USER 10001:10001
# Environment variables override the file: inside a container, listen on every interface and
# answer IP addresses, localhost (a published port) and the service name `lifecycled` (the
# shipped Compose file's and Kubernetes manifests'). Any other name gets 421, so a web page
# that rebinds its own DNS name to the container can neither read nor change anything: give
# the names your harness uses in LIFECYCLED_ALLOWED_HOSTS (it replaces this list).
ENV LIFECYCLED_HOST=0.0.0.0 \
    LIFECYCLED_ALLOWED_HOSTS=lifecycled \
    LIFECYCLED_PORT=8080 \
    LIFECYCLED_CONFIG=/etc/lifecycled/lifecycled.json
EXPOSE 8080
HEALTHCHECK --start-period=5s --start-interval=0.1s --interval=10s --timeout=3s --retries=3 \
    CMD ["lifecycled", "healthcheck"]
# No shell in between: lifecycled is PID 1 and gets docker stop's SIGTERM itself.
ENTRYPOINT ["lifecycled"]
CMD ["serve"]
