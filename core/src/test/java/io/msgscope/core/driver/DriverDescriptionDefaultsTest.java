package io.msgscope.core.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import java.util.Map;

/** What a driver that says nothing of itself tells the coordinator's summary: a broker in the middle (issue 30). */
class DriverDescriptionDefaultsTest {
    private final Driver broker = new Driver() {
        @Override
        public String name() {
            return "somebroker";
        }

        @Override
        public Subscriber openSubscriber(DriverSpec spec, ClientContext context) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Publisher openPublisher(DriverSpec spec, ClientContext context) {
            throw new UnsupportedOperationException();
        }
    };

    @Test
    void aBrokerBetweenSenderAndReceiverWithTheDestinationWhenOneWasReported() {
        assertEquals("sender -> broker amqp://127.0.0.1:5672 -> receiver (destination amq.gen-1)",
                broker.topology("amqp://127.0.0.1:5672", Map.of(), "amq.gen-1"));
        assertEquals("sender -> broker  -> receiver", broker.topology("", Map.of(), ""));
    }

    @Test
    void aMiddleBoxOfItsOwnCountsItsIoThreadsToo() {
        assertEquals("relay forwarding-thread CPU (ns, plus the somebroker middle box's I/O threads)",
                broker.middleBoxCpuSource());
    }
}
