// The GEO commands' rows of the command table (engine/geo_commands.cc): Redis 7.0's arity,
// flags, legacy key range and key specs (COMMAND INFO), so that clients see the same.
#include "engine/command_table.h"
#include "engine/handlers.h"

namespace kvlab::engine {

namespace {

// GEORADIUS's STORE and STOREDIST destinations: a keyword search from `startfrom`.
KeySpec StoreKeyword(std::string_view keyword, int startfrom) {
  KeySpec s = KeySpec::Range(0, 0, 1, {"OW", "update"});
  s.keyword = keyword;
  s.startfrom = startfrom;
  return s;
}

}  // namespace

void AppendGeoCommandRows(std::vector<CommandSpec>* rows) {
  const std::vector<CommandSpec> geo = {
      {"geoadd", -5, kCmdWrite | kCmdDenyOom, 1, 1, 1, &GeoaddCommand, "geo",
       "Add one or more geospatial items in the geospatial index represented using a sorted set",
       "3.2.0"},
      {"geodist", -4, kCmdReadonly, 1, 1, 1, &GeodistCommand, "geo",
       "Returns the distance between two members of a geospatial index", "3.2.0"},
      {"geohash", -2, kCmdReadonly, 1, 1, 1, &GeohashCommand, "geo",
       "Returns members of a geospatial index as standard geohash strings", "3.2.0"},
      {"geopos", -2, kCmdReadonly, 1, 1, 1, &GeoposCommand, "geo",
       "Returns longitude and latitude of members of a geospatial index", "3.2.0"},
      {"georadius",
       -6,
       kCmdWrite | kCmdDenyOom,
       1,
       1,
       1,
       &GeoradiusCommand,
       "geo",
       "Query a sorted set representing a geospatial index to fetch members matching a given "
       "maximum distance from a point",
       "3.2.0",
       {KeySpec::Range(1, 0, 1, {"RO", "access"}), StoreKeyword("STORE", 6),
        StoreKeyword("STOREDIST", 6)}},
      {"georadius_ro", -6, kCmdReadonly, 1, 1, 1, &GeoradiusRoCommand, "geo",
       "A read-only variant for GEORADIUS", "3.2.10"},
      {"georadiusbymember",
       -5,
       kCmdWrite | kCmdDenyOom,
       1,
       1,
       1,
       &GeoradiusbymemberCommand,
       "geo",
       "Query a sorted set representing a geospatial index to fetch members matching a given "
       "maximum distance from a member",
       "3.2.0",
       {KeySpec::Range(1, 0, 1, {"RO", "access"}), StoreKeyword("STORE", 5),
        StoreKeyword("STOREDIST", 5)}},
      {"georadiusbymember_ro", -5, kCmdReadonly, 1, 1, 1, &GeoradiusbymemberRoCommand, "geo",
       "A read-only variant for GEORADIUSBYMEMBER", "3.2.10"},
      {"geosearch", -7, kCmdReadonly, 1, 1, 1, &GeosearchCommand, "geo",
       "Query a sorted set representing a geospatial index to fetch members inside an area of a "
       "box or a circle.",
       "6.2.0"},
      {"geosearchstore",
       -8,
       kCmdWrite | kCmdDenyOom,
       1,
       2,
       1,
       &GeosearchstoreCommand,
       "geo",
       "Query a sorted set representing a geospatial index to fetch members inside an area of a "
       "box or a circle, and store the result in another key.",
       "6.2.0",
       {KeySpec::Range(1, 0, 1, {"OW", "update"}), KeySpec::Range(2, 0, 1, {"RO", "access"})}},
  };
  rows->insert(rows->end(), geo.begin(), geo.end());
}

}  // namespace kvlab::engine
