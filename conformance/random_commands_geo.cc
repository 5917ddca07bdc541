// The GEO commands' segment of the random sequences. They run on the zset keys, so that a search
// also meets members whose scores no GEOADD wrote (ZADD's infinities, negatives and fractions),
// and on positions close together (searches find something; equal positions make ties for
// COUNT's partial sort), with the extremes of the coordinate ranges and malformed arguments.
#include "conformance/random_commands_internal.h"

namespace kvlab::conformance::random_internal {
namespace {

const Words kGeoKeys = {"z1", "z2"};
// A GEOADD to a lex key (random_commands_zset.cc) must keep its scores at 0: this position's.
const Words kLexKeys = {"l1", "s1", "h1", "nokey"};
struct Position {
  const char* lon;
  const char* lat;
};
const std::vector<Position> kPositions = {{"13.361389", "38.115556"},
                                          {"15.087269", "37.502669"},
                                          {"13.5", "38"},
                                          {"13.361389", "38.115556"},
                                          {"13.3614", "38.1156"},
                                          {"-180", "-85.05112878"},
                                          {"180", "85.05112878"},
                                          {"0", "0"},
                                          {"179.99", "0.5"},
                                          {"-179.99", "0.5"},
                                          {"14", "38"},
                                          {"13.37", "38.12"}};
const std::vector<Position> kBadPositions = {{"181", "0"}, {"0", "85.06"}, {"abc", "1"},
                                             {"1", ""},    {"nan", "0"},   {"-inf", "0"}};
const Words kRadii = {"0", "1", "10", "50", "200", "1000", "20000", "0.5"};
const Words kUnits = {"m", "km", "mi", "ft", "KM"};

std::string GeoKey(Gen& g) { return Key(g, kGeoKeys); }
std::string Destination(Gen& g) { return g.Chance(85) ? g.Pick(kZsetKeys) : "x"; }
void PushPosition(Gen& g, Argv* a) {
  const Position& p = g.Chance(95) ? g.Pick(kPositions) : g.Pick(kBadPositions);
  a->insert(a->end(), {p.lon, p.lat});
}
void PushRadius(Gen& g, Argv* a) {
  a->push_back(g.Chance(95) ? g.Pick(kRadii) : g.Pick(Words{"-1", "abc", "", "inf"}));
  a->push_back(g.Chance(95) ? g.Pick(kUnits) : "parsec");
}
std::string Unit(Gen& g) { return g.Chance(95) ? g.Pick(kUnits) : "parsec"; }

Argv Geoadd(Gen& g) {
  const std::string key = GeoKey(g);
  const bool lex = std::find(kLexKeys.begin(), kLexKeys.end(), key) != kLexKeys.end();
  Argv a = {"GEOADD", key};
  for (const char* flag : {"NX", "XX", "CH"}) {
    if (g.Chance(12)) a.push_back(flag);
  }
  for (uint64_t n = 1 + g.Below(3); n > 0; --n) {
    if (lex) {
      a.insert(a.end(), {"-180", "-85.05112878"});
    } else {
      PushPosition(g, &a);
    }
    a.push_back(g.Pick(kMembers));
  }
  return a;
}

Argv GeoMembers(Gen& g, const char* cmd) {
  Argv a = {cmd, GeoKey(g)};
  for (uint64_t n = 1 + g.Below(3); n > 0; --n) a.push_back(g.Pick(kMembers));
  return a;
}

Argv Geodist(Gen& g) {
  Argv a = {"GEODIST", GeoKey(g), g.Pick(kMembers), g.Pick(kMembers)};
  if (g.Chance(60)) a.push_back(Unit(g));
  return a;
}

// The options of the search commands, in a random order: WITH*, ASC/DESC, COUNT [ANY], ANY
// alone now and then, and STORE / STOREDIST where the command takes them.
void PushSearchOptions(Gen& g, bool with, bool store_key, bool storedist_flag, Argv* a) {
  for (uint64_t n = g.Below(4); n > 0; --n) {
    switch (g.Below(7)) {
      case 0:
        if (with) a->push_back(g.Pick(Words{"WITHDIST", "WITHHASH", "WITHCOORD"}));
        break;
      case 1:
        a->push_back(g.Pick(Words{"ASC", "DESC"}));
        break;
      case 2:
      case 3:
        a->insert(a->end(), {"COUNT", Number(g, Words{"1", "2", "3", "5", "0", "-1"})});
        if (g.Chance(35)) a->push_back("ANY");
        break;
      case 4:
        if (g.Chance(20)) a->push_back("ANY");
        break;
      case 5:
        if (store_key && g.Chance(50)) {
          a->insert(a->end(), {g.Pick(Words{"STORE", "STOREDIST"}), Destination(g)});
        }
        break;
      default:
        if (storedist_flag && g.Chance(50)) a->push_back("STOREDIST");
        break;
    }
  }
}

Argv Georadius(Gen& g, const char* cmd, bool ro) {
  Argv a = {cmd, GeoKey(g)};
  PushPosition(g, &a);
  PushRadius(g, &a);
  PushSearchOptions(g, /*with=*/!g.Chance(10) || ro, /*store_key=*/true, false, &a);
  return a;
}

Argv Georadiusbymember(Gen& g, const char* cmd, bool ro) {
  Argv a = {cmd, GeoKey(g), g.Pick(kMembers)};
  PushRadius(g, &a);
  PushSearchOptions(g, /*with=*/!g.Chance(10) || ro, /*store_key=*/true, false, &a);
  return a;
}

// GEOSEARCH's FROM and BY parts, one of each mostly, in either order.
void PushFromBy(Gen& g, Argv* a) {
  Argv from, by;
  if (g.Chance(50)) {
    from = {"FROMMEMBER", g.Pick(kMembers)};
  } else {
    from = {"FROMLONLAT"};
    PushPosition(g, &from);
  }
  if (g.Chance(50)) {
    by = {"BYRADIUS"};
    PushRadius(g, &by);
  } else {
    by = {"BYBOX", g.Chance(95) ? g.Pick(kRadii) : "-1", g.Pick(kRadii), Unit(g)};
  }
  if (g.Chance(5)) from.clear();
  if (g.Chance(5)) by.clear();
  if (g.Chance(50)) std::swap(from, by);
  a->insert(a->end(), from.begin(), from.end());
  a->insert(a->end(), by.begin(), by.end());
}

Argv Geosearch(Gen& g) {
  Argv a = {"GEOSEARCH", GeoKey(g)};
  PushFromBy(g, &a);
  PushSearchOptions(g, true, false, false, &a);
  return a;
}

Argv Geosearchstore(Gen& g) {
  Argv a = {"GEOSEARCHSTORE", Destination(g), GeoKey(g)};
  PushFromBy(g, &a);
  PushSearchOptions(g, g.Chance(10), false, true, &a);
  return a;
}

}  // namespace

std::vector<Entry> GeoEntries() {
  return {
      {"geoadd", 4, Geoadd},
      {"geopos", 1, [](Gen& g) { return GeoMembers(g, "GEOPOS"); }},
      {"geohash", 1, [](Gen& g) { return GeoMembers(g, "GEOHASH"); }},
      {"geodist", 1, Geodist},
      {"georadius", 2, [](Gen& g) { return Georadius(g, "GEORADIUS", false); }},
      {"georadius_ro", 1, [](Gen& g) { return Georadius(g, "GEORADIUS_RO", true); }},
      {"georadiusbymember", 1,
       [](Gen& g) { return Georadiusbymember(g, "GEORADIUSBYMEMBER", false); }},
      {"georadiusbymember_ro", 1,
       [](Gen& g) { return Georadiusbymember(g, "GEORADIUSBYMEMBER_RO", true); }},
      {"geosearch", 2, Geosearch},
      {"geosearchstore", 1, Geosearchstore},
  };
}

}  // namespace kvlab::conformance::random_internal
