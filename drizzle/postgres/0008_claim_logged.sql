-- The claim with its log row (lib/store/postgres/claim.ts, lib/claims/): leaf_ts_claim's two statements, then the
-- INSERT into leaf_claim in the same transaction, so a claim and its row commit together or not at all. The time is
-- clock_timestamp() after the row lock: at or before the commit, so before any ID of the segment is served.
CREATE OR REPLACE FUNCTION leaf_ts_claim_logged(p_biz_tag varchar, p_added bigint, p_limit bigint, p_fleet_key varchar,
  p_default varchar, p_kind varchar, p_claimer varchar, p_instance varchar, p_serving_first bigint, p_leased_max bigint, p_tail_ms bigint,
  p_region integer, p_regions integer)
RETURNS TABLE (claimed_max_id bigint, claimed_semantics varchar)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_first bigint;
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
  -- leaf-ts owns [max − added + 1, max]; Leaf's semantics [max − added, max − 1] (docs/design.md#claim-semantics).
  v_first := claimed_max_id - p_added + (CASE WHEN claimed_semantics = 'leaf' THEN 0 ELSE 1 END);
  INSERT INTO leaf_claim (biz_tag, first_id, last_id, claimed_at, kind, claimer, instance, serving_first, leased_max,
      tail_ms, region, regions)
    VALUES (p_biz_tag, v_first, v_first + p_added - 1, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint,
      p_kind, p_claimer, p_instance, p_serving_first, p_leased_max, p_tail_ms, p_region, p_regions);
  RETURN NEXT;
END
$$;
