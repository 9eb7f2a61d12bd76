package io.msgscope.coordinator.trace;

import io.msgscope.control.AgentFailure;
import io.msgscope.control.AgentLink;
import io.msgscope.control.ControlHub;
import io.msgscope.control.Frames;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.TraceChunk;
import io.msgscope.proto.UploadRequest;

/**
 * The end of a trace run: every agent that still answers uploads what it recorded, in chunks, into the run's
 * {@link TraceCollector}, even after a failure (issue 16: no recorded data dropped); an upload that breaks off keeps
 * what arrived and says so.
 */
final class TraceUploads {
    /** Cap on one uploaded sample series (a week of 10 ms samples is 60 M). */
    static final long MAX_SAMPLE_VALUES = 100_000_000L;

    private final ControlHub hub;
    private final TraceCollector out;

    TraceUploads(ControlHub hub, TraceCollector out) {
        this.hub = hub;
        this.out = out;
    }

    /** Uploads from every agent that still answers, even after a failure (no lost data). */
    void all(AgentLink sender, AgentLink receiver, AgentLink probe) {
        if (probe != null) {
            try {
                upload(probe);
            } catch (AgentFailure f) {
                out.note("probe sample upload: " + f.getMessage());
            }
        }
        if (sender != null) {
            try {
                upload(sender);
                out.sendUploaded = true;
            } catch (AgentFailure f) {
                out.tracesMissing.add("sender");
                out.note("sender trace upload: " + f.getMessage());
                out.partial("sender", "send", out.sendNs);
            }
        }
        if (receiver != null) {
            try {
                upload(receiver);
                out.recvUploaded = true;
            } catch (AgentFailure f) {
                out.tracesMissing.add("receiver");
                out.note("receiver trace upload: " + f.getMessage());
                out.partial("receiver", "receive", out.recvNs);
            }
        }
    }

    private void upload(AgentLink link) throws AgentFailure {
        link.send(Envelope.newBuilder().setUploadRequest(UploadRequest.newBuilder()
                .setChunkValues(Frames.CHUNK_VALUES)).build());
        long deadlineMs = 60_000 + out.spec.count() / 100;
        while (true) {
            // only this agent matters now: another's failure, or this one's failure before it was asked to upload
            // (e.g. its measurement's), is set aside as a warning, so a survivor's trace is never dropped (issue 16)
            Envelope env = hub.awaitOnly(link, deadlineMs, "the " + Frames.name(link.role()) + " trace upload",
                    message -> !message.startsWith("upload"), out::setAside,
                    Envelope.BodyCase.CHUNK, Envelope.BodyCase.UPLOAD_DONE);
            if (env.getBodyCase() == Envelope.BodyCase.UPLOAD_DONE) {
                return;
            }
            TraceChunk c = env.getChunk();
            try {
                switch (c.getSeries()) {
                    case SEND_NS -> Frames.copyInto(c, out.sendNs);
                    case RECV_NS -> Frames.copyInto(c, out.recvNs);
                    case INTENDED_NS -> Frames.copyInto(c, out.intendedNs());
                    case SERIES_UNSPECIFIED, UNRECOGNIZED ->
                            throw new AgentFailure(link.name(), "unknown trace series " + c.getSeries(), false);
                    default -> out.samples.put(c.getSeries(),
                            Frames.copyGrowing(c, out.samples.get(c.getSeries()), MAX_SAMPLE_VALUES));
                }
            } catch (IllegalArgumentException e) {
                throw new AgentFailure(link.name(), e.getMessage(), false);
            }
        }
    }
}
