#!/usr/bin/env python3
"""A fleet for many users, on paper, from the costs dev/load-instances.sh measured.

Reads the measured figures (instances.json: CPU per suggestion and per donation of the
instances and of the database, bytes a donation in the database, memory a held model) and
the stated assumptions below, and prints the arithmetic: peak rates, cores, database size and
memory, in total and per partition. Users are partitioned by user name (a hash of the name
picks the partition); each partition is one PostgreSQL database with the instances that
serve its users, so no query crosses partitions.

Assumptions (options, with their defaults and where each comes from):
  --users 10000000
  --donations-per-day 22.6   the Android log's person (700 launches in 31 days,
                             datasets/device-logs; `proactive convert`): the one real
                             single-person rate we have
  --suggestions-per-donation 1  one question each time the person opens something
  --peak-factor 3.3          the busiest hour's rate over the day's mean for that person
                             (13.7 % of the launches in one hour of 24); the aggregated
                             600-user log's is 1.23, so 3.3 is the cautious choice
  --retention-days 365       how long donations are kept (`retention set`)
  --held-share 0.25          share of the users whose live model is in memory at the peak
                             (assumed: nothing we have measures it)
  --utilization 0.6          the share of a core planned to be busy at the peak
  --db-cores 16 --db-bytes 4e12   what one database server of a partition may have

Usage: dev/sizing.py out/bench/instances/instances.json [--users N] [...]
"""
import argparse
import json
import math


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("measured")
    parser.add_argument("--users", type=float, default=10e6)
    parser.add_argument("--donations-per-day", type=float, default=22.6)
    parser.add_argument("--suggestions-per-donation", type=float, default=1.0)
    parser.add_argument("--peak-factor", type=float, default=3.3)
    parser.add_argument("--retention-days", type=float, default=365)
    parser.add_argument("--held-share", type=float, default=0.25)
    parser.add_argument("--utilization", type=float, default=0.6)
    parser.add_argument("--db-cores", type=float, default=16)
    parser.add_argument("--db-bytes", type=float, default=4e12)
    parser.add_argument("--instance-cores", type=float, default=8)
    arguments = parser.parse_args()
    measured = json.load(open(arguments.measured))
    side = measured["sides"]["pg1"]
    sizes = measured["sizes"]
    suggestion_instance = side["suggestions"]["instances_cpu_us"] * 1e-6
    suggestion_database = side["suggestions"]["database_cpu_us"] * 1e-6
    donation_instance = side["donations"]["instances_cpu_us"] * 1e-6
    donation_database = side["donations"]["database_cpu_us"] * 1e-6
    bytes_per_donation = sizes["database_bytes"] / sizes["donations"]
    held_bytes = (sizes["rss_kb_models_held"] - sizes["rss_kb_no_model"]) * 1024 / measured["users"]

    users = arguments.users
    donations_mean = users * arguments.donations_per_day / 86400
    donations_peak = donations_mean * arguments.peak_factor
    suggestions_peak = donations_peak * arguments.suggestions_per_donation
    instance_cores = (suggestions_peak * suggestion_instance + donations_peak * donation_instance) / arguments.utilization
    database_cores = (suggestions_peak * suggestion_database + donations_peak * donation_database) / arguments.utilization
    retained = users * arguments.donations_per_day * arguments.retention_days
    database_bytes = retained * bytes_per_donation
    memory = users * arguments.held_share * held_bytes
    partitions = max(1, math.ceil(max(database_cores / arguments.db_cores, database_bytes / arguments.db_bytes)))
    instances = max(2, math.ceil(instance_cores / partitions / arguments.instance_cores))  # at least 2: one may fail

    print(f"measured on {measured['date']} (dev/load-instances.sh, {measured['users']} users, one instance on "
          f"PostgreSQL, {measured['cores']} cores shared by wrk, the instance and the database):")
    print(f"  a suggestion: {suggestion_instance * 1e6:.0f} us of instance CPU, {suggestion_database * 1e6:.0f} us of database CPU")
    print(f"  a donation:   {donation_instance * 1e6:.0f} us of instance CPU, {donation_database * 1e6:.0f} us of database CPU")
    print(f"  {bytes_per_donation:,.0f} bytes a donation in the database (tables, indexes, saved states); "
          f"{held_bytes / 1e6:.2f} MB of memory a held model")
    print()
    print(f"| for {users:,.0f} users | figure | arithmetic |")
    print("|---|---:|---|")
    print(f"| donations a second, mean | {donations_mean:,.0f} | users x {arguments.donations_per_day} a day / 86,400 |")
    print(f"| donations a second, peak | {donations_peak:,.0f} | mean x {arguments.peak_factor} |")
    print(f"| suggestions a second, peak | {suggestions_peak:,.0f} | donations x {arguments.suggestions_per_donation} |")
    print(f"| instance cores | {instance_cores:,.0f} | (suggestions x {suggestion_instance * 1e6:.0f} us + donations x "
          f"{donation_instance * 1e6:.0f} us) / {arguments.utilization} |")
    print(f"| database cores | {database_cores:,.0f} | (suggestions x {suggestion_database * 1e6:.0f} us + donations x "
          f"{donation_database * 1e6:.0f} us) / {arguments.utilization} |")
    print(f"| donations kept | {retained:,.0f} | users x {arguments.donations_per_day} x {arguments.retention_days:.0f} days |")
    print(f"| database size | {database_bytes / 1e12:,.1f} TB | kept x {bytes_per_donation:,.0f} bytes |")
    print(f"| memory for held models | {memory / 1e9:,.0f} GB | users x {arguments.held_share} x {held_bytes / 1e6:.2f} MB |")
    print(f"| partitions | {partitions} | the most of cores / {arguments.db_cores:.0f} and size / "
          f"{arguments.db_bytes / 1e12:.0f} TB a database server |")
    print(f"| per partition | {users / partitions:,.0f} users, {donations_peak / partitions:,.0f} donations/s and "
          f"{suggestions_peak / partitions:,.0f} suggestions/s at the peak, {database_cores / partitions:.1f} database "
          f"cores, {database_bytes / partitions / 1e12:.2f} TB, {instances} instances of {arguments.instance_cores:.0f} "
          f"cores with {memory / partitions / instances / 1e9:.0f} GB each for models | |")


if __name__ == "__main__":
    main()
