// The anchor dumbbell (bench/anchors.py) in htsim (github.com/Broadcom/csg-htsim): N TCP bulk
// flows (htsim's NewReno), 1000-byte packets, RATE Mb/s bottleneck, 20 ms one way, 1 Gb/s 1 ms
// access, DropTail at the BDP, starts in [0, 1] s; the reverse path is delay only. Prints one
// line: events, the event loop's wall time, bottleneck packets (bytes the sinks received /
// 1000) and events per bottleneck packet. Build (g++, C++17):
//   cd csg-htsim/sim && make libhtsim.a
//   g++ -O3 -std=c++17 -I. path/to/bench/htsim_dumbbell.cpp libhtsim.a -o htsim-dumbbell
// Usage: htsim-dumbbell N RATE_MBPS SECONDS; `HTSIM=path/to/htsim-dumbbell make bench`.
#include "config.h"
#include <iostream>
#include <chrono>
#include <cstring>
#include "network.h"
#include "pipe.h"
#include "eventlist.h"
#include "queue.h"
#include "tcp.h"
#include "clock.h"
using namespace std;
int main(int argc, char** argv) {
    int n = atoi(argv[1]); double rate_mbps = atof(argv[2]); double secs = atof(argv[3]);
    EventList eventlist;
    eventlist.setEndtime(timeFromSec(secs));
    Packet::set_packet_size(1000);
    srand(1);
    linkspeed_bps BN = speedFromMbps((uint64_t)rate_mbps);
    int bdp = int(rate_mbps * 1e6 * 2 * 0.022 / 8000);
    Queue bottleneck(BN, memFromPkt(bdp), eventlist, NULL); bottleneck.setName("bn");
    Pipe fwd(timeFromMs(20), eventlist);
    Pipe back(timeFromMs(20 + 2), eventlist);  // reverse path: delay only (ACKs never queue)
    TcpRtxTimerScanner scanner(timeFromMs(10), eventlist);
    vector<TcpSink*> sinks;
    for (int i = 0; i < n; i++) {
        TcpSrc* src = new TcpSrc(NULL, NULL, eventlist);
        TcpSink* snk = new TcpSink(); sinks.push_back(snk);
        scanner.registerTcp(*src);
        route_t* out = new route_t();
        out->push_back(new Queue(speedFromMbps((uint64_t)1000), memFromPkt(50), eventlist, NULL));
        out->push_back(new Pipe(timeFromMs(1), eventlist));
        out->push_back(&bottleneck);
        out->push_back(&fwd);
        out->push_back(snk);
        route_t* in = new route_t();
        in->push_back(&back);
        in->push_back(src);
        src->connect(*out, *in, *snk, (simtime_picosec)(drand() * timeFromSec(1)));
    }
    uint64_t events = 0;
    auto t0 = chrono::steady_clock::now();
    while (eventlist.doNextEvent()) events++;
    double wall = chrono::duration<double>(chrono::steady_clock::now() - t0).count();
    // bottleneck departures ~ goodput-limited: estimate from rate * time (link is saturated)
    double pkts = 0; for (auto s : sinks) pkts += s->_packets / 1000.0;  // bytes received by the sinks / 1000-byte packets
    cout << "htsim n=" << n << " rate=" << rate_mbps << " secs=" << secs << " events=" << events
         << " wall_s=" << wall << " Mev_s=" << events / wall / 1e6
         << " bn_pkts_est=" << pkts << " events_per_bn_pkt=" << events / pkts
         << " bn_pkts_per_s_M=" << pkts / wall / 1e6 << " drops=" << bottleneck.num_drops() << endl;
}
