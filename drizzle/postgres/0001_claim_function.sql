-- The segment claim in one round trip (lib/store/postgres/claim.ts): the UPDATE … RETURNING takes the tag's row, then,
-- with its lock held, a statement of its own reads the tag's semantics. Two statements, not one: a subquery of the
-- UPDATE would read the snapshot the UPDATE started with, so a claim that waited on a semantics switch's row lock
-- would get the switch's max_id with the OLD semantics. A VOLATILE function takes a fresh snapshot for each statement
-- under READ COMMITTED, so the second sees every switch that committed before the row lock was the claim's.
-- Written by hand (drizzle-kit generate --custom); the limits and names come from the caller.
CREATE OR REPLACE FUNCTION leaf_ts_claim(p_biz_tag varchar, p_added bigint, p_limit bigint, p_fleet_key varchar, p_default varchar)
RETURNS TABLE (claimed_max_id bigint, claimed_semantics varchar)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  UPDATE leaf_alloc SET max_id = leaf_alloc.max_id + p_added, update_time = CURRENT_TIMESTAMP
    WHERE leaf_alloc.biz_tag = p_biz_tag AND leaf_alloc.max_id BETWEEN 0 AND p_limit
    RETURNING leaf_alloc.max_id INTO claimed_max_id;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT COALESCE((SELECT s.semantics FROM leaf_semantics s WHERE s.biz_tag = p_biz_tag),
                  (SELECT d.semantics FROM leaf_semantics d WHERE d.biz_tag = p_fleet_key), p_default)
    INTO claimed_semantics;
  RETURN NEXT;
END
$$;
