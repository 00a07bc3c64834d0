-- The claim with its log row (lib/store/mysql/claim.ts, lib/claims/) in one round trip: the claim statement of
-- lib/store/mysql/claim.ts (max_id and the semantics bit in LAST_INSERT_ID), then the leaf_claim row, in one
-- transaction that holds the tag's row lock for no network wait. A procedure, not a trigger or function: with binary
-- logging on, creating those needs SUPER; a procedure needs CREATE ROUTINE. Any failure rolls the two back together.
CREATE PROCEDURE leaf_ts_claim_logged(IN p_biz_tag VARCHAR(128), IN p_added BIGINT, IN p_limit BIGINT,
  IN p_fleet_key VARCHAR(128), IN p_default VARCHAR(16), IN p_kind VARCHAR(16), IN p_claimer VARCHAR(255),
  IN p_instance VARCHAR(64), IN p_serving_first BIGINT, IN p_leased_max BIGINT, IN p_tail_ms BIGINT,
  IN p_region INT, IN p_regions INT)
MODIFIES SQL DATA
BEGIN
  DECLARE v_claimed BIGINT UNSIGNED DEFAULT NULL;
  DECLARE v_max BIGINT;
  DECLARE v_first BIGINT;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION
  BEGIN
    ROLLBACK;
    RESIGNAL;
  END;
  START TRANSACTION;
  UPDATE `leaf_alloc` SET max_id = LAST_INSERT_ID((max_id + p_added) | ((COALESCE(
      (SELECT s.semantics FROM `leaf_semantics` s WHERE s.biz_tag = p_biz_tag),
      (SELECT d.semantics FROM `leaf_semantics` d WHERE d.biz_tag = p_fleet_key), p_default) = 'leaf') << 63))
      & 9223372036854775807
    WHERE biz_tag = p_biz_tag AND max_id BETWEEN 0 AND p_limit;
  IF ROW_COUNT() = 1 THEN
    SET v_claimed = LAST_INSERT_ID();
    SET v_max = v_claimed & 9223372036854775807;
    -- leaf-ts owns [max − added + 1, max]; Leaf's semantics [max − added, max − 1] (docs/design.md#claim-semantics).
    SET v_first = v_max - p_added + 1 - (v_claimed >> 63);
    INSERT INTO `leaf_claim` (biz_tag, first_id, last_id, claimed_at, kind, claimer, instance, serving_first,
        leased_max, tail_ms, region, regions)
      VALUES (p_biz_tag, v_first, v_first + p_added - 1, CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED), p_kind,
        p_claimer, p_instance, p_serving_first, p_leased_max, p_tail_ms, p_region, p_regions);
  END IF;
  COMMIT;
  SELECT CAST(v_claimed AS CHAR) AS claimed;
END
